// Screens that fit, on three screens side by side (1280x800, 1366x768, 1024x700, an offscreen
// configuration written before the application starts): every dialog opens within its screen
// with its buttons in view; on every page, with long data (ids of 1,000 bytes, long reasons and
// actors, a policy of eight windows, a row of invalid policies), nothing pushes the main window
// past the screen; the Dashboard's two tables, live and with a shadow policy, show every column
// with no sideways scrolling; the user detail opens within the screen with its buttons (the
// Overrides section's included) in view; the Policies table shows every column at 1024 without
// scrolling, and its History tab, with a long action, actor and reason, keeps its buttons in view;
// the Lua page's help is wrapped, not cut; the Policies table never ends on a half row, with few
// policies or with enough to scroll, at 1024x700 and 1280x800.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Limiter.h"
#include "tollgate/Moderation.h"
#include "tollgate/PolicyStore.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionDialog.h"
#include "ui/connection/ProfileStore.h"
#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/keys/ValueViewer.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/policies/PolicyHistoryPanel.h"
#include "ui/shell/AboutDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ShortcutsDialog.h"
#include "ui/user/BanDialog.h"
#include "ui/user/OverrideDialog.h"
#include "ui/user/ReasonDialog.h"

#include <QDialogButtonBox>
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
// The screens the console must fit, in the order the offscreen configuration places them.
const QList<QSize> kScreens{QSize(1280, 800), QSize(1366, 768), kSmallScreen};
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

QScreen* screenOf(const QSize& size)
{
    for (QScreen* screen : QGuiApplication::screens())
        if (screen->size() == size)
            return screen;
    return nullptr;
}

// A visible button outside `window`'s rectangle, or an empty string.
QString buttonOutside(QWidget* window)
{
    for (auto* box : window->findChildren<QDialogButtonBox*>())
        for (QAbstractButton* button : box->buttons()) {
            if (!button->isVisibleTo(window))
                continue;
            const QRect at(button->mapTo(window, QPoint(0, 0)), button->size());
            if (!window->rect().contains(at))
                return QStringLiteral("%1 at %2,%3 (%4) outside %5")
                    .arg(button->text())
                    .arg(at.x())
                    .arg(at.y())
                    .arg(describe(at.size()), describe(window->size()));
        }
    return {};
}

} // namespace

class ScreenFitTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void dialogsFitEveryScreen_data();
    void dialogsFitEveryScreen();
    void mainWindowFitsOnEveryPage_data();
    void mainWindowFitsOnEveryPage();
    void dashboardTablesShowEveryColumn_data();
    void dashboardTablesShowEveryColumn();
    void userDetailOpensWithinTheScreen();
    void policiesShowEveryColumnAt1024();
    void policyHistoryFitsAt1024();
    void luaHelpIsWrappedNotCut();
    void policiesTableEndsOnAWholeRow();

private:
    Policy policy(const QByteArray& action, std::vector<WindowLimit> windows) const;
    void save(const Policy& policy);
    std::unique_ptr<MainWindow> openWindow(const QSize& size);
    void checkDialog(QWidget* dialog, const QSize& screen);

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
    // A shadow policy (the dashboard's "would deny" column), and a user it would deny.
    Policy probe = policy("probe", {{2, 60'000}});
    probe.shadow = true;
    save(probe);
    for (int i = 0; i < 5; ++i) {
        std::optional<bool> hit;
        m_seeder->limiter().hit(probe, "prober", 0, this,
                                [&](Result<HitResult> r) { hit = r.ok(); });
        QTRY_VERIFY(hit.has_value() && *hit);
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
    if (QScreen* screen = screenOf(size)) {
        window->setScreen(screen);
        window->move(screen->geometry().topLeft());
    }
    window->setSession(std::make_unique<Session>(m_seeder->settings()));
    window->resize(size);
    window->show();
    if (!QTest::qWaitFor([&] { return window->session()->state() == ConnectionState::Connected; },
                         5000))
        qWarning("the window did not connect");
    return window;
}

void ScreenFitTest::checkDialog(QWidget* dialog, const QSize& size)
{
    dialog->show();
    QTest::qWait(300); // its content arrives and the layout settles
    const QRect screen = screenOf(size)->availableGeometry();
    const QString name = dialog->objectName() + QStringLiteral(" at ") + describe(size);
    QVERIFY2(screen.contains(dialog->geometry()),
             qPrintable(QStringLiteral("%1: %2 at %3,%4 leaves the screen")
                            .arg(name, describe(dialog->size()))
                            .arg(dialog->x() - screen.x())
                            .arg(dialog->y() - screen.y())));
    QVERIFY2(fits(dialog->minimumSizeHint(), size),
             qPrintable(name + QStringLiteral(" needs ") + describe(dialog->minimumSizeHint())));
    const QString outside = buttonOutside(dialog);
    QVERIFY2(outside.isEmpty(), qPrintable(name + QStringLiteral(": ") + outside));
    dialog->close();
}

void ScreenFitTest::dialogsFitEveryScreen_data()
{
    QTest::addColumn<QSize>("size");
    for (const QSize& size : kScreens)
        QTest::newRow(qPrintable(describe(size))) << size;
}

void ScreenFitTest::dialogsFitEveryScreen()
{
    QFETCH(QSize, size);
    QVERIFY2(screenOf(size), "the offscreen screens were not configured");
    auto window = openWindow(size);
    Session* session = window->session();
    std::vector<Policy> policies;
    for (const QByteArray& action : {QByteArray("like"), QByteArray("search")})
        policies.push_back(policy(action, {{10, 10'000}}));
    // The connection dialog with every section open: the tallest form there is.
    ConnectionProfile tall;
    tall.name = QStringLiteral("tall");
    tall.connection.tls.enabled = true;
    tall.connection.ssh.destination = QStringLiteral("ops@bastion.example.com");
    tall.connection.sentinel.masterName = QStringLiteral("mymaster");
    tall.connection.sentinel.sentinels = {{QStringLiteral("10.0.0.1"), 26379}};
    m_profiles->save(tall);
    auto* connection = new ConnectionDialog(m_profiles.get(), window.get());
    connection->selectProfile(QStringLiteral("tall"));
    const std::vector<QWidget*> dialogs{
        connection,
        new shell::AboutDialog(window.get()),
        new shell::ShortcutsDialog(window.get(), window.get()),
        new BanDialog(session, kLongUser, {"like", "search"}, window.get()),
        new ReasonDialog(session, ReasonDialog::Operation::Unban, kLongUser, {{}, "search"},
                         window.get()),
        new OverrideDialog(session, kLongUser, policies, "search", OverrideDialog::Preset::GiveMore,
                           window.get()),
        new ValueViewer(session, session->schema().actionBanKey(kLongUser, "search"), window.get()),
        window->openUser(kLongUser),
    };
    for (QWidget* dialog : dialogs) {
        QVERIFY(dialog);
        checkDialog(dialog, size);
        if (QTest::currentTestFailed())
            return;
    }
}

void ScreenFitTest::mainWindowFitsOnEveryPage_data()
{
    dialogsFitEveryScreen_data();
}

void ScreenFitTest::mainWindowFitsOnEveryPage()
{
    QFETCH(QSize, size);
    auto window = openWindow(size);
    for (const QString& key : window->pageKeys()) {
        window->showPage(key);
        QTest::qWait(1500); // the page loads and its status lines fill in
        const QSize minimum = window->minimumSizeHint();
        QVERIFY2(fits(minimum, size),
                 qPrintable(QStringLiteral("on the %1 page the window needs at least %2; %3")
                                .arg(key, describe(minimum), widestChild(window->page(key)))));
        window->resize(size);
        QTRY_COMPARE(window->size(), size);
    }
}

void ScreenFitTest::dashboardTablesShowEveryColumn_data()
{
    dialogsFitEveryScreen_data();
}

void ScreenFitTest::dashboardTablesShowEveryColumn()
{
    QFETCH(QSize, size);
    // The shadow policy "probe" (its "would deny" column shown), a denied user, and the ban.
    auto window = openWindow(size);
    window->showPage(QStringLiteral("dashboard"));
    auto* page = qobject_cast<DashboardPage*>(window->page(QStringLiteral("dashboard")));
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(page->actionsModel()->rowOf("probe") >= 0, 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(page->nearLimitModel()->rowCount() >= 2, 15'000);
    QTest::qWait(1500); // a few samples more: widths that change with the data would show
    for (const char* name : {"actionStatsTableView", "nearLimitTableView"}) {
        auto* table = page->findChild<QTableView*>(QLatin1String(name));
        QVERIFY(table);
        for (int column = 0; column < table->model()->columnCount(); ++column) {
            // From 1280 px every column shows; at 1024 two step aside (Count / limit and
            // Warnings/s), the others stay.
            const bool optional = (QLatin1String(name) == QLatin1String("nearLimitTableView") &&
                                   column == NearLimitModel::Count) ||
                                  column == ActionStatsModel::WarnsPerSec;
            QVERIFY2(!table->isColumnHidden(column) || (optional && size == kSmallScreen),
                     qPrintable(QStringLiteral("%1 at %2 hides column %3")
                                    .arg(QLatin1String(name), describe(size))
                                    .arg(column)));
            if (table->isColumnHidden(column))
                continue;
            const int right = table->horizontalHeader()->sectionViewportPosition(column) +
                              table->horizontalHeader()->sectionSize(column);
            QVERIFY2(right <= table->viewport()->width(),
                     qPrintable(QStringLiteral("%1 at %2: column %3 (%4) ends at %5 of %6")
                                    .arg(QLatin1String(name), describe(size))
                                    .arg(column)
                                    .arg(table->model()
                                             ->headerData(column, Qt::Horizontal)
                                             .toString()
                                             .simplified())
                                    .arg(right)
                                    .arg(table->viewport()->width())));
        }
        QVERIFY2(!table->horizontalScrollBar()->isVisible(), name);
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

// Three screens side by side, as the offscreen platform reads them from a file at start-up.
int main(int argc, char** argv)
{
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screens.json"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly))
        return 2;
    QString screens;
    int x = 0;
    for (const QSize& size : kScreens) {
        screens += QStringLiteral("%1{\"name\": \"%2\", \"x\": %3, \"y\": 0, \"width\": %4, "
                                  "\"height\": %5, \"logicalDpi\": 96}")
                       .arg(screens.isEmpty() ? QString() : QStringLiteral(", "), describe(size))
                       .arg(x)
                       .arg(size.width())
                       .arg(size.height());
        x += size.width();
    }
    file.write(QStringLiteral("{\"screens\": [%1]}").arg(screens).toUtf8());
    file.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    QApplication app(argc, argv);
    ScreenFitTest test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_ScreenFit.moc"
