// Every table of the console copies and opens the same way (ui/shell/TableActions.h), checked on
// the Audit log of a main window against a real redis-server: Ctrl+C copies the selected rows
// as tab-separated text, a right-click offers Copy and Open user, and a double-click on an
// audit row opens its user.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "ui/audit/AuditModel.h"
#include "ui/common/Session.h"
#include "ui/connection/ProfileStore.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/TableActions.h"

#include <QClipboard>
#include <QContextMenuEvent>
#include <QHeaderView>
#include <QMenu>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <optional>

using namespace tollgate;
using namespace tollgate::ui;
using tollgate::test::RedisServer;

class TableActionsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void ctrlCCopiesSelectedRows();
    void ctrlShiftCCopiesHeadersToo();
    void rightClickOffersCopyAndOpenUser();
    void doubleClickOnAuditRowOpensUser();
    void openKeyShowsItsValue();
    void screenshot();

private:
    bool record(const QByteArray& user);
    QWidget* openUserWindow(const QByteArray& user) const;

    RedisServer m_redis;
    QTemporaryDir m_dir;
    std::unique_ptr<ProfileStore> m_profiles;
    std::unique_ptr<MainWindow> m_window;
    QTableView* m_view = nullptr;
};

bool TableActionsTest::record(const QByteArray& user)
{
    AuditEntry entry;
    entry.event = QStringLiteral("ban");
    entry.user = user;
    entry.action = "login";
    entry.actor = QStringLiteral("ops-anna");
    entry.reason = QStringLiteral("tabs\tand\nlines stay in one cell");
    std::optional<bool> ok;
    QObject context;
    m_window->session()->audit().record(entry, &context,
                                        [&ok](Status status) { ok = status.ok(); });
    (void)QTest::qWaitFor([&ok] { return ok.has_value(); }, 10'000);
    return ok.value_or(false);
}

QWidget* TableActionsTest::openUserWindow(const QByteArray& user) const
{
    for (QWidget* widget : m_window->findChildren<QWidget*>(QStringLiteral("userDetailDialog")))
        if (widget->isVisible() && widget->windowTitle().contains(QString::fromUtf8(user)))
            return widget;
    return nullptr;
}

void TableActionsTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    m_profiles = std::make_unique<ProfileStore>(std::make_unique<QSettings>(
        m_dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat));
    m_window = std::make_unique<MainWindow>(m_profiles.get());
    Session::Settings settings;
    settings.connection = ConnectionOptions::fromUrl(m_redis.url()).value();
    settings.actor = QStringLiteral("tester");
    m_window->setSession(std::make_unique<Session>(settings));
    m_window->resize(1280, 800);
    m_window->show();
    QTRY_COMPARE_WITH_TIMEOUT(m_window->session()->state(), ConnectionState::Connected, 10'000);
    for (const char* user : {"alice", "bob", "carol"})
        QVERIFY(record(user));
    m_window->showPage(QStringLiteral("audit"));
    m_view = m_window->findChild<QTableView*>(QStringLiteral("auditTableView"));
    QVERIFY(m_view);
    QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->rowCount(), 3, 10'000);
}

void TableActionsTest::cleanupTestCase()
{
    m_window.reset();
}

void TableActionsTest::init()
{
    QApplication::clipboard()->clear();
    m_view->clearSelection();
    // Newest first: carol, bob, alice. Rows 0 and 2 of three, as Ctrl+click picks them.
    QItemSelection rows;
    for (int row : {0, 2})
        rows.select(m_view->model()->index(row, 0), m_view->model()->index(row, 0));
    m_view->selectionModel()->select(rows, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    m_view->selectionModel()->setCurrentIndex(m_view->model()->index(2, AuditModel::User),
                                              QItemSelectionModel::NoUpdate);
    m_view->setFocus();
}

void TableActionsTest::ctrlCCopiesSelectedRows()
{
    QTest::keyClick(m_view, Qt::Key_C, Qt::ControlModifier);
    const QStringList lines = QApplication::clipboard()->text().split(u'\n');
    QCOMPARE(lines.size(), 2); // one line per selected row, not the current cell alone
    QStringList first = lines[0].split(u'\t');
    QCOMPARE(first.size(), int(AuditModel::ColumnCount)); // every visible column
    QCOMPARE(first[AuditModel::User], QStringLiteral("carol"));
    QCOMPARE(first[AuditModel::Event], QStringLiteral("ban"));
    // As shown (the page escapes the tab and the line break): one field, one line.
    QCOMPARE(first[AuditModel::Reason],
             m_view->model()->index(0, AuditModel::Reason).data().toString());
    QCOMPARE(lines[1].split(u'\t').value(AuditModel::User), QStringLiteral("alice"));

    // On screen order: a column moved by hand is copied where it is shown.
    QHeaderView* header = m_view->horizontalHeader();
    header->moveSection(header->visualIndex(AuditModel::User), 0);
    QTest::keyClick(m_view, Qt::Key_C, Qt::ControlModifier);
    header->moveSection(0, AuditModel::User);
    QVERIFY(QApplication::clipboard()->text().startsWith(QStringLiteral("carol\t")));
}

void TableActionsTest::ctrlShiftCCopiesHeadersToo()
{
    QTest::keyClick(m_view, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    const QStringList lines = QApplication::clipboard()->text().split(u'\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0].split(u'\t').value(AuditModel::User), QStringLiteral("User"));
    QCOMPARE(lines[0].split(u'\t').value(AuditModel::Reason), QStringLiteral("Reason"));
}

void TableActionsTest::rightClickOffersCopyAndOpenUser()
{
    const QModelIndex carol = m_view->model()->index(0, AuditModel::Reason);
    const QPoint at = m_view->visualRect(carol).center();
    QContextMenuEvent click(QContextMenuEvent::Mouse, at, m_view->viewport()->mapToGlobal(at));
    QApplication::sendEvent(m_view->viewport(), &click);
    QMenu* shown = nullptr;
    QTRY_VERIFY((shown = m_view->findChild<QMenu*>(QStringLiteral("tableContextMenu"))) &&
                shown->isVisible());
    shown->close();

    std::unique_ptr<QMenu> menu(shell::TableActions::menuFor(m_view, carol));
    auto* copy = menu->findChild<QAction*>(QStringLiteral("copyRowsAction"));
    QVERIFY(copy && copy->isEnabled());
    copy->trigger();
    QCOMPARE(QApplication::clipboard()->text().count(u'\n'), 1);
    auto* open = menu->findChild<QAction*>(QStringLiteral("openUserAction"));
    QVERIFY(open);
    QVERIFY2(open->text().contains(QStringLiteral("carol")), qPrintable(open->text()));
    QVERIFY(!menu->findChild<QAction*>(QStringLiteral("openKeyAction"))); // no key on the row
    open->trigger();
    QWidget* user = nullptr;
    QTRY_VERIFY((user = openUserWindow("carol")));
    user->close();
}

void TableActionsTest::doubleClickOnAuditRowOpensUser()
{
    const QModelIndex bob = m_view->model()->index(1, AuditModel::Time);
    const QPoint at = m_view->visualRect(bob).center();
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(m_view->viewport(), Qt::LeftButton, {}, at);
    QWidget* user = nullptr;
    QTRY_VERIFY((user = openUserWindow("bob")));
    user->close();
}

void TableActionsTest::openKeyShowsItsValue()
{
    // "Open key" (a slow log's script row) opens the value viewer, as the Keys page does.
    QWidget* viewer = m_window->openKey("tg:audit");
    QVERIFY(viewer);
    QCOMPARE(viewer->objectName(), QStringLiteral("valueViewerDialog"));
    QVERIFY(viewer->windowTitle().contains(QStringLiteral("tg:audit")));
    viewer->close();
}

void TableActionsTest::screenshot()
{
    // The right-click menu and View › Palette as a person sees them.
    std::unique_ptr<QMenu> menu(
        shell::TableActions::menuFor(m_view, m_view->model()->index(0, AuditModel::User)));
    menu->adjustSize();
    QVERIFY(menu->grab().save(QStringLiteral("/tmp/tollgate-table-menu.png")));
    auto* palette = m_window->findChild<QMenu*>(QStringLiteral("paletteMenu"));
    QVERIFY(palette);
    QMetaObject::invokeMethod(palette, "aboutToShow");
    palette->adjustSize();
    QVERIFY(palette->grab().save(QStringLiteral("/tmp/tollgate-palette-menu.png")));
    auto* view = m_window->findChild<QMenu*>(QStringLiteral("viewMenu"));
    view->adjustSize();
    QVERIFY(view->grab().save(QStringLiteral("/tmp/tollgate-view-menu.png")));
}

QTEST_MAIN(TableActionsTest)
#include "tst_TableActions.moc"
