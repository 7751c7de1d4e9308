// Find user with a "*": ids never hold a raw "*", so "scraper*" is no user to open (it showed an
// empty one with Ban… enabled) but every id with that prefix: the Subjects page, filtered.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Limiter.h"
#include "ui/common/Session.h"
#include "ui/connection/ProfileStore.h"
#include "ui/shell/MainWindow.h"
#include "ui/subjects/SubjectsModel.h"
#include "ui/subjects/SubjectsPage.h"
#include "ui/user/UserDetailDialog.h"

#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

class FindUserPrefixTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void starFiltersSubjectsInsteadOfOpeningAUser();

private:
    test::RedisServer m_redis;
    QTemporaryDir m_dir;
};

void FindUserPrefixTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
}

void FindUserPrefixTest::starFiltersSubjectsInsteadOfOpeningAUser()
{
    ProfileStore profiles(
        std::make_unique<QSettings>(m_dir.filePath(QStringLiteral("p.ini")), QSettings::IniFormat));
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("tester");
    MainWindow window(&profiles);
    window.setSession(std::make_unique<Session>(settings));
    window.resize(1280, 800);
    window.show();
    Session* session = window.session();
    QTRY_VERIFY(session->state() == ConnectionState::Connected);

    Policy view;
    view.action = "view";
    view.windows = {{20, 60'000}};
    std::optional<bool> saved;
    session->policies().save(view, QStringLiteral("tester"), this,
                             [&](Result<qint64> r) { saved = r.ok(); });
    QTRY_VERIFY(saved.has_value() && *saved);
    for (const QByteArray user : {"scraper-1", "scraper-2", "reader-9"}) {
        std::optional<bool> hit;
        session->limiter().hit(view, user, 0, this, [&](Result<HitResult> r) { hit = r.ok(); });
        QTRY_VERIFY(hit.has_value() && *hit);
    }

    auto* find = window.findChild<QLineEdit*>(QStringLiteral("findUserLineEdit"));
    QTest::keyClicks(find, QStringLiteral("scraper*"));
    QTest::keyClick(find, Qt::Key_Return);

    QCOMPARE(window.currentPageKey(), QStringLiteral("subjects"));
    QVERIFY(window.findChildren<UserDetailDialog*>().isEmpty()); // no empty "scraper*" user
    auto* page = qobject_cast<SubjectsPage*>(window.page(QStringLiteral("subjects")));
    QVERIFY(page);
    QCOMPARE(page->findChild<QLineEdit*>(QStringLiteral("filterLineEdit"))->text(),
             QStringLiteral("scraper*"));
    QTRY_COMPARE(page->model()->rowCount(), 2);
}

QTEST_MAIN(FindUserPrefixTest)
#include "tst_FindUserPrefix.moc"
