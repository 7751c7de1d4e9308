// The audit page against a real redis-server: bans and unbans made through core Moderation
// appear newest first with actor and reason, the filters narrow the rows, and live updates
// add new entries exactly once.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/audit/AuditFilterModel.h"
#include "ui/audit/AuditModel.h"
#include "ui/audit/AuditPage.h"
#include "ui/common/Session.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLineEdit>
#include <QTableView>
#include <QtTest>
#include <optional>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class tst_AuditPage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void banAndUnbanAppearNewestFirst();
    void filterNarrows();
    void liveUpdatesWithoutDuplicates();
    void idsAreShownSafely();
    void initialLoadOfExistingEntries();
    void screenshot();

private:
    bool ban(const QByteArray& user, const QByteArray& action, const QString& reason);
    bool unban(const QByteArray& user, const QByteArray& action, const QString& reason);
    bool record(const QString& event, const QByteArray& user);
    QString cell(int row, AuditModel::Column column) const;

    RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<AuditPage> m_page;
};

bool tst_AuditPage::ban(const QByteArray& user, const QByteArray& action, const QString& reason)
{
    BanRequest request;
    request.user = user;
    request.action = action;
    request.actor = QStringLiteral("ops-anna");
    request.reason = reason;
    request.durationMs = 3'600'000;
    std::optional<bool> ok;
    QObject context;
    m_session->moderation().ban(request, &context,
                                [&ok](Result<BanInfo> result) { ok = result.ok(); });
    (void)QTest::qWaitFor([&ok] { return ok.has_value(); }, 10'000);
    return ok.value_or(false);
}

bool tst_AuditPage::unban(const QByteArray& user, const QByteArray& action, const QString& reason)
{
    std::optional<bool> ok;
    QObject context;
    m_session->moderation().unban(user, action, QStringLiteral("ops-ben"), reason, &context,
                                  [&ok](Result<qint64> result) { ok = result.ok(); });
    (void)QTest::qWaitFor([&ok] { return ok.has_value(); }, 10'000);
    return ok.value_or(false);
}

bool tst_AuditPage::record(const QString& event, const QByteArray& user)
{
    AuditEntry entry;
    entry.event = event;
    entry.user = user;
    entry.action = "login";
    entry.actor = QStringLiteral("script");
    entry.reason = QStringLiteral("recorded directly");
    std::optional<bool> ok;
    QObject context;
    m_session->audit().record(entry, &context, [&ok](Status status) { ok = status.ok(); });
    (void)QTest::qWaitFor([&ok] { return ok.has_value(); }, 10'000);
    return ok.value_or(false);
}

QString tst_AuditPage::cell(int row, AuditModel::Column column) const
{
    AuditModel* model = m_page->model();
    return model->data(model->index(row, column)).toString();
}

void tst_AuditPage::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Session::Settings settings;
    auto options = ConnectionOptions::fromUrl(m_redis.url());
    QVERIFY(options);
    settings.connection = *options;
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_COMPARE(m_session->state(), ConnectionState::Connected);

    m_page = std::make_unique<AuditPage>(m_session.get());
    new QAbstractItemModelTester(m_page->model(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest,
                                 m_page.get());
    new QAbstractItemModelTester(m_page->filterModel(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest,
                                 m_page.get());
    m_page->resize(1280, 800);
    m_page->show();
}

void tst_AuditPage::cleanupTestCase()
{
    m_page.reset();
    m_session.reset();
}

void tst_AuditPage::banAndUnbanAppearNewestFirst()
{
    QVERIFY(ban("alice", "login", QStringLiteral("credential stuffing")));
    QTRY_COMPARE(m_page->model()->rowCount(), 1);
    QCOMPARE(cell(0, AuditModel::Event), QStringLiteral("ban"));
    QCOMPARE(cell(0, AuditModel::User), QStringLiteral("alice"));
    QCOMPARE(cell(0, AuditModel::Action), QStringLiteral("login"));
    QCOMPARE(cell(0, AuditModel::Actor), QStringLiteral("ops-anna"));
    QCOMPARE(cell(0, AuditModel::Reason), QStringLiteral("credential stuffing"));
    QVERIFY(!cell(0, AuditModel::Until).isEmpty());

    QVERIFY(unban("alice", "login", QStringLiteral("false positive")));
    QTRY_COMPARE(m_page->model()->rowCount(), 2);
    QCOMPARE(cell(0, AuditModel::Event), QStringLiteral("unban"));
    QCOMPARE(cell(0, AuditModel::Actor), QStringLiteral("ops-ben"));
    QCOMPARE(cell(0, AuditModel::Reason), QStringLiteral("false positive"));
    QCOMPARE(cell(1, AuditModel::Event), QStringLiteral("ban"));
    QVERIFY(m_page->model()->entry(0).id > m_page->model()->entry(1).id);
}

void tst_AuditPage::filterNarrows()
{
    QVERIFY(ban("bob", "search", QStringLiteral("scraping")));
    QTRY_COMPARE(m_page->model()->rowCount(), 3);

    auto* filter = m_page->findChild<QLineEdit*>(QStringLiteral("filterLineEdit"));
    auto* events = m_page->findChild<QComboBox*>(QStringLiteral("eventComboBox"));
    auto* view = m_page->findChild<QTableView*>(QStringLiteral("auditTableView"));
    QVERIFY(filter && events && view);
    QAbstractItemModel* shown = view->model();

    QTest::keyClicks(filter, QStringLiteral("FALSE pos")); // any column, any case
    QCOMPARE(shown->rowCount(), 1);
    QCOMPARE(shown->index(0, AuditModel::Event).data().toString(), QStringLiteral("unban"));

    filter->clear();
    QCOMPARE(shown->rowCount(), 3);
    filter->setText(QStringLiteral("ops-anna")); // the actor column
    QCOMPARE(shown->rowCount(), 2);

    filter->clear();
    events->setCurrentIndex(events->findData(QStringLiteral("ban")));
    QCOMPARE(shown->rowCount(), 2);
    for (int row = 0; row < shown->rowCount(); ++row)
        QCOMPARE(shown->index(row, AuditModel::Event).data().toString(), QStringLiteral("ban"));
    filter->setText(QStringLiteral("bob"));
    QCOMPARE(shown->rowCount(), 1);

    filter->clear();
    events->setCurrentIndex(0);
    QCOMPARE(shown->rowCount(), 3);
}

void tst_AuditPage::liveUpdatesWithoutDuplicates()
{
    const int before = m_page->model()->rowCount();
    // Entries without a pub/sub event arrive through the one-second poll.
    QVERIFY(record(QStringLiteral("repair"), "carol"));
    QVERIFY(record(QStringLiteral("repair"), "dave"));
    QVERIFY(record(QStringLiteral("repair"), "erin"));
    m_page->refresh(); // racing the timer must not duplicate anything
    m_page->refresh();
    QTRY_COMPARE(m_page->model()->rowCount(), before + 3);
    QCOMPARE(cell(0, AuditModel::User), QStringLiteral("erin"));
    QCOMPARE(cell(2, AuditModel::User), QStringLiteral("carol"));

    // A newly seen event name becomes a filter choice.
    auto* events = m_page->findChild<QComboBox*>(QStringLiteral("eventComboBox"));
    QVERIFY(events->findData(QStringLiteral("repair")) >= 0);

    // Several more polls racing one more entry: each still exactly once. The polls run one
    // after another, so once the new entry is in, the ones before it have finished.
    for (int i = 0; i < 3; ++i)
        m_page->refresh();
    QVERIFY(record(QStringLiteral("repair"), "frank"));
    m_page->refresh();
    QTRY_COMPARE(m_page->model()->rowCount(), before + 4);
    QCOMPARE(cell(0, AuditModel::User), QStringLiteral("frank"));
    QSet<QByteArray> ids;
    for (int row = 0; row < m_page->model()->rowCount(); ++row)
        ids.insert(m_page->model()->entry(row).id);
    QCOMPARE(ids.size(), m_page->model()->rowCount());
}

void tst_AuditPage::idsAreShownSafely()
{
    const int before = m_page->model()->rowCount();
    QVERIFY(ban("evil\nuser\t1", "log\rin", QStringLiteral("line one\nline two")));
    QTRY_COMPARE(m_page->model()->rowCount(), before + 1);
    QCOMPARE(cell(0, AuditModel::User), QStringLiteral("evil\\nuser\\t1"));
    QCOMPARE(cell(0, AuditModel::Action), QStringLiteral("log\\rin"));
    QCOMPARE(cell(0, AuditModel::Reason), QStringLiteral("line one\\nline two"));
    QCOMPARE(AuditModel::safeText(QByteArray("\xff\x01ok", 4)), QStringLiteral("\\xff\\u{1}ok"));
}

void tst_AuditPage::initialLoadOfExistingEntries()
{
    AuditPage second(m_session.get());
    QAbstractItemModelTester tester(second.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    second.show();
    QTRY_COMPARE(second.model()->rowCount(), m_page->model()->rowCount());
    for (int row = 0; row < second.model()->rowCount(); ++row)
        QCOMPARE(second.model()->entry(row).id, m_page->model()->entry(row).id);
}

void tst_AuditPage::screenshot()
{
    for (int i = 0; i < 12; ++i)
        QVERIFY(ban("user" + QByteArray::number(i), i % 2 ? "login" : "search",
                    QStringLiteral("too many requests (%1)").arg(i)));
    QVERIFY(unban("user3", "login", QStringLiteral("customer called support")));
    QTRY_COMPARE(cell(0, AuditModel::Event), QStringLiteral("unban"));
    const QImage image = m_page->grab().toImage();
    QCOMPARE(image.size(), QSize(1280, 800));
    const QByteArray dir = qgetenv("TOLLGATE_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(image.save(QString::fromLocal8Bit(dir) + QStringLiteral("/audit.png")));
}

QTEST_MAIN(tst_AuditPage)
#include "tst_AuditPage.moc"
