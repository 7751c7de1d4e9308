// Screens that fit: on every page, with long data (ids of 1,000 bytes, long reasons and actors,
// a policy of eight windows, a row of invalid policies), nothing pushes the main window past
// 1024x700; the user detail opens within the screen with its buttons (the Overrides section's
// included) in view; the Policies table shows every column at 1024 without scrolling, and its
// History tab, with a long action, actor and reason, keeps its buttons in view; the Lua page's
// help is wrapped, not cut; the Policies table never ends on a half row, with few policies
// or with enough to scroll, at 1024x700 and 1280x800.

#include "core/limiter/Limiter.h"
#include "core/moderation/Moderation.h"
#include "core/policies/PolicyStore.h"
#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/common/Session.h"
#include "ui/connection/ProfileStore.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/policies/PolicyHistoryPanel.h"
#include "ui/shell/MainWindow.h"

#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

namespace {

const QSize kSmallScreen(1024, 700);
const QByteArray kLongUser = QByteArray(990, 'w') + "-long-user";

QString describe(const QSize& size)
{
    return QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
}

bool fits(const QSize& size, const QSize& screen)
{
    return size.width() <= screen.width() && size.height() <= screen.height();
}

// The descendant whose minimum width is the largest: what to blame when a page is too wide.
QString widestChild(QWidget* root)
{
    QWidget* widest = nullptr;
    for (QWidget* child : root->findChildren<QWidget*>()) {
        if (!child->isVisibleTo(root) || child->isWindow())
            continue;
        if (!widest || child->minimumSizeHint().width() > widest->minimumSizeHint().width())
            widest = child;
    }
    return widest ? QStringLiteral("%1 (%2) wants %3")
                        .arg(widest->objectName(),
                             QString::fromLatin1(widest->metaObject()->className()),
                             describe(widest->minimumSizeHint()))
                  : QString();
}

} // namespace

class ScreenFitTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void mainWindowFitsOnEveryPage();
    void userDetailOpensWithinTheScreen();
    void policiesShowEveryColumnAt1024();
    void policyHistoryFitsAt1024();
    void luaHelpIsWrappedNotCut();
    void policiesTableEndsOnAWholeRow();

private:
    Policy policy(const QByteArray& action, std::vector<WindowLimit> windows) const;
    void save(const Policy& policy);
    std::unique_ptr<MainWindow> openWindow(const QSize& size);

    test::RedisServer m_redis;
    QTemporaryDir m_dir;
    std::unique_ptr<ProfileStore> m_profiles;
    std::unique_ptr<Session> m_seeder;
};

Policy ScreenFitTest::policy(const QByteArray& action, std::vector<WindowLimit> windows) const
{
    Policy p;
    p.action = action;
    p.windows = std::move(windows);
    p.timeZone = "UTC";
    return p;
}

void ScreenFitTest::save(const Policy& p)
{
    std::optional<Result<qint64>> saved;
    m_seeder->policies().save(p, QStringLiteral("operator-with-a-rather-long-name@host"), this,
                              [&](Result<qint64> r) { saved = r; });
    QTRY_VERIFY(saved.has_value());
    QVERIFY2(*saved, qPrintable(*saved ? QString() : saved->error().toString()));
}

void ScreenFitTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_profiles = std::make_unique<ProfileStore>(std::make_unique<QSettings>(
        m_dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("operator-with-a-rather-long-name@") + QString(60, u'h');
    m_seeder = std::make_unique<Session>(settings);
    m_seeder->open();
    QTRY_VERIFY(m_seeder->state() == ConnectionState::Connected);

    Policy like = policy("like", {{10, 10'000}});
    like.banMs = 3'600'000;
    Policy search = policy("search", {{10, 1'000},
                                      {20, 10'000},
                                      {60, 60'000},
                                      {100, 600'000},
                                      {500, 3'600'000},
                                      {1000, 21'600'000},
                                      {2000, 86'400'000},
                                      {5000, 604'800'000}});
    search.warn = 8;
    search.cost = 2;
    search.countDenied = true;
    search.message = QString(300, u'm');
    const QByteArray longAction = "export-" + QByteArray(200, 'x');
    for (const Policy& p : {like, search, policy(longAction, {{100, 3'600'000}})})
        save(p);
    // Invalid policies with long names: the Subjects page lists them in its status line.
    for (int i = 0; i < 6; ++i) {
        const QByteArray action = "broken-" + QByteArray::number(i) + QByteArray(120, 'b');
        m_redis.command({"HSET", m_seeder->schema().policyKey(action), "windows", "nonsense"});
        m_redis.command({"SADD", m_seeder->schema().policyIndexKey(), action});
    }
    // A user with a 1,000-byte id, over the limit, banned with a long reason by a long actor.
    for (int i = 0; i < 12; ++i) {
        std::optional<bool> hit;
        m_seeder->limiter().hit(like, kLongUser, 0, this,
                                [&](Result<HitResult> r) { hit = r.ok(); });
        QTRY_VERIFY(hit.has_value() && *hit);
    }
    BanRequest ban{kLongUser, "search", settings.actor, QString(400, u'r'), 3'600'000, 0};
    std::optional<bool> banned;
    m_seeder->moderation().ban(ban, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned.has_value() && *banned);
}

void ScreenFitTest::cleanupTestCase()
{
    m_seeder.reset();
    m_profiles.reset();
}

std::unique_ptr<MainWindow> ScreenFitTest::openWindow(const QSize& size)
{
    auto window = std::make_unique<MainWindow>(m_profiles.get());
    window->setSession(std::make_unique<Session>(m_seeder->settings()));
    window->resize(size);
    window->show();
    if (!QTest::qWaitFor([&] { return window->session()->state() == ConnectionState::Connected; },
                         5000))
        qWarning("the window did not connect");
    return window;
}

void ScreenFitTest::mainWindowFitsOnEveryPage()
{
    auto window = openWindow(kSmallScreen);
    for (const QString& key : window->pageKeys()) {
        window->showPage(key);
        QTest::qWait(1500); // the page loads and its status lines fill in
        const QSize minimum = window->minimumSizeHint();
        QVERIFY2(fits(minimum, kSmallScreen),
                 qPrintable(QStringLiteral("on the %1 page the window needs at least %2; %3")
                                .arg(key, describe(minimum), widestChild(window->page(key)))));
        window->resize(kSmallScreen);
        QTRY_COMPARE(window->size(), kSmallScreen);
    }
}

void ScreenFitTest::userDetailOpensWithinTheScreen()
{
    auto window = openWindow(kSmallScreen);
    QWidget* dialog = window->openUser(kLongUser);
    QVERIFY(dialog);
    QTest::qWait(1500); // actions, bans and history arrive
    const QRect screen = dialog->screen()->availableGeometry();
    // Its contents (the window manager's frame aside) are on the screen, buttons included.
    QVERIFY2(screen.contains(dialog->geometry()),
             qPrintable(QStringLiteral("the dialog at %1,%2 %3 leaves the screen %4")
                            .arg(dialog->x())
                            .arg(dialog->y())
                            .arg(describe(dialog->size()), describe(screen.size()))));
    QVERIFY2(fits(dialog->minimumSizeHint(), kSmallScreen),
             qPrintable(describe(dialog->minimumSizeHint()) + QStringLiteral("; ") +
                        widestChild(dialog)));
    dialog->resize(kSmallScreen);
    QTRY_COMPARE(dialog->size(), kSmallScreen);
    for (const char* name :
         {"banButton", "unbanButton", "resetButton", "closeButton", "giveMoreButton",
          "addOverrideButton", "editOverrideButton", "removeOverrideButton"}) {
        auto* button = dialog->findChild<QPushButton*>(QLatin1String(name));
        QVERIFY2(button, name);
        const QRect at(button->mapTo(dialog, QPoint(0, 0)), button->size());
        QVERIFY2(dialog->rect().contains(at),
                 qPrintable(QStringLiteral("%1 at %2,%3 is outside the dialog")
                                .arg(QLatin1String(name))
                                .arg(at.right())
                                .arg(at.bottom())));
    }
    dialog->close();
}

void ScreenFitTest::policiesShowEveryColumnAt1024()
{
    // The table as operators have it: short names (a 200-byte action name may scroll).
    m_redis.command({"SREM", m_seeder->schema().policyIndexKey(),
                     KeySchema::escape("export-" + QByteArray(200, 'x'))});
    auto window = openWindow(kSmallScreen);
    window->showPage(QStringLiteral("policies"));
    auto* table = window->page(QStringLiteral("policies"))
                      ->findChild<QTableView*>(QStringLiteral("policiesTableView"));
    QVERIFY(table);
    QTRY_VERIFY(table->model()->rowCount() >= 2);
    QTest::qWait(100); // a layout pass with the rows in
    for (int column = 0; column < PoliciesModel::ColumnCount; ++column) {
        const int right = table->horizontalHeader()->sectionViewportPosition(column) +
                          table->horizontalHeader()->sectionSize(column);
        QVERIFY2(right <= table->viewport()->width(),
                 qPrintable(QStringLiteral("column %1 (%2) ends at %3 of %4")
                                .arg(column)
                                .arg(table->model()->headerData(column, Qt::Horizontal).toString())
                                .arg(right)
                                .arg(table->viewport()->width())));
    }
    QVERIFY(!table->horizontalScrollBar()->isVisible());
}

void ScreenFitTest::policyHistoryFitsAt1024()
{
    // A second revision of a long-named action, saved with a long reason by the long actor.
    const QByteArray action = "history-" + QByteArray(200, 'h');
    save(policy(action, {{10, 60'000}}));
    Policy second = policy(action, {{20, 60'000}});
    second.revision = 1;
    std::optional<Result<qint64>> saved;
    m_seeder->policies().save(second, m_seeder->settings().actor, QString(300, u'r'), this,
                              [&](Result<qint64> r) { saved = r; });
    QTRY_VERIFY(saved.has_value() && *saved);

    auto window = openWindow(kSmallScreen);
    window->showPage(QStringLiteral("policies"));
    auto* page = qobject_cast<PoliciesPage*>(window->page(QStringLiteral("policies")));
    QVERIFY(page);
    QTRY_VERIFY(page->model()->rowOf(action) >= 0);
    page->findChild<QTableView*>(QStringLiteral("policiesTableView"))
        ->selectRow(page->model()->rowOf(action));
    page->showHistory();
    auto* revisions = page->findChild<QTableWidget*>(QStringLiteral("revisionsTableWidget"));
    QTRY_COMPARE(revisions->rowCount(), 2);
    revisions->selectRow(1);
    QTest::qWait(100); // a layout pass with the rows in
    QVERIFY2(fits(window->minimumSizeHint(), kSmallScreen),
             qPrintable(describe(window->minimumSizeHint()) + QStringLiteral("; ") +
                        widestChild(page)));
    QCOMPARE(window->size(), kSmallScreen);
    for (const char* name :
         {"restoreRevisionButton", "showHistoryButton", "diffTableWidget", "revisionsTableWidget"}) {
        auto* widget = page->findChild<QWidget*>(QLatin1String(name));
        QVERIFY2(widget && widget->isVisible(), name);
        const QRect at(widget->mapTo(window.get(), QPoint(0, 0)), widget->size());
        QVERIFY2(window->rect().contains(at), qPrintable(QStringLiteral("%1 leaves the window")
                                                              .arg(QLatin1String(name))));
    }
    QCOMPARE(page->findChild<QTableWidget*>(QStringLiteral("diffTableWidget"))->rowCount(), 1);
}

void ScreenFitTest::luaHelpIsWrappedNotCut()
{
    auto window = openWindow(kSmallScreen);
    window->showPage(QStringLiteral("lua"));
    QWidget* page = window->page(QStringLiteral("lua"));
    auto* help = page->findChild<QPlainTextEdit*>(QStringLiteral("headerPlainTextEdit"));
    QVERIFY(help);
    QTRY_VERIFY(!help->toPlainText().isEmpty());
    QTest::qWait(100);
    QCOMPARE(help->horizontalScrollBar()->maximum(), 0);
    const QRect at(help->mapTo(window.get(), QPoint(0, 0)), help->size());
    QVERIFY2(window->rect().contains(at), "the help pane leaves the window");
}

void ScreenFitTest::policiesTableEndsOnAWholeRow()
{
    for (int extra = 0; extra <= 20; extra += 20) {
        for (int i = 0; i < extra; ++i)
            save(policy("extra-" + QByteArray::number(i), {{10, 60'000}}));
        for (const QSize& size : {kSmallScreen, QSize(1280, 800)}) {
            auto window = openWindow(size);
            window->showPage(QStringLiteral("policies"));
            auto* page = qobject_cast<PoliciesPage*>(window->page(QStringLiteral("policies")));
            QVERIFY(page);
            QTRY_VERIFY(page->model()->rowCount() >= 2 + extra);
            QTest::qWait(100); // a layout pass with the rows in, and the fit after it
            auto* table = page->findChild<QTableView*>(QStringLiteral("policiesTableView"));
            const int rowHeight = table->verticalHeader()->defaultSectionSize();
            const int height = table->viewport()->height();
            const int rows = page->model()->rowCount();
            const QString where = QStringLiteral("%1 policies at %2: %3 px for rows of %4 px")
                                      .arg(rows)
                                      .arg(describe(size))
                                      .arg(height)
                                      .arg(rowHeight);
            if (rows * rowHeight > height) { // it scrolls: the last row on screen is whole
                QVERIFY2(height % rowHeight == 0, qPrintable(where));
                QVERIFY2(table->verticalScrollBar()->isVisible(), qPrintable(where));
            }
            QVERIFY2(extra > 0 || rows * rowHeight <= height,
                     qPrintable(where + QStringLiteral(" (a handful should all show)")));
            // The room went to the form below (it scrolls inside), not past the window.
            auto* form = page->findChild<QWidget*>(QStringLiteral("policyTabWidget"));
            QVERIFY(form);
            const QRect at(form->mapTo(window.get(), QPoint(0, 0)), form->size());
            QVERIFY2(window->rect().contains(at), qPrintable(where + QStringLiteral(": the form")));
        }
    }
}

QTEST_MAIN(ScreenFitTest)
#include "tst_ScreenFit.moc"
