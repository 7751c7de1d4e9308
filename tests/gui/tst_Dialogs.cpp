// How the dialogs feel from the keyboard: focus starts in the Reason field, no red error
// before anything is typed, Enter submits once the input is valid, Alt mnemonics never clash,
// Tab leaves a table, and F1 lists the shortcuts.

#include "tests/support/RedisServer.h"
#include "tests/support/TestEnv.h"
#include "tollgate/Version.h"
#include "ui/common/Session.h"
#include "ui/connection/ConnectionDialog.h"
#include "ui/connection/ProfileStore.h"
#include "ui/shell/AboutDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ShortcutsDialog.h"
#include "ui/user/BanDialog.h"
#include "ui/user/ReasonDialog.h"
#include "ui/user/UserDetailDialog.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace tollgate;
using namespace tollgate::ui;

namespace {

QChar mnemonic(const QString& text)
{
    for (int i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != QLatin1Char('&'))
            continue;
        if (text[i + 1] == QLatin1Char('&')) {
            ++i; // "&&" is a literal ampersand
            continue;
        }
        return text[i + 1].toLower();
    }
    return {};
}

/// "x: Name, New" for every Alt letter used by more than one visible control of `root`.
QStringList mnemonicClashes(QWidget* root)
{
    QMap<QChar, QStringList> owners;
    auto note = [&](const QString& text, QWidget* widget) {
        if (!widget->isVisibleTo(root))
            return;
        const QChar key = mnemonic(text);
        if (!key.isNull())
            owners[key] << QString(text).remove(QLatin1Char('&'));
    };
    for (QAbstractButton* button : root->findChildren<QAbstractButton*>())
        note(button->text(), button);
    for (QLabel* label : root->findChildren<QLabel*>())
        if (label->buddy())
            note(label->text(), label);
    for (QGroupBox* box : root->findChildren<QGroupBox*>())
        note(box->title(), box);
    QStringList clashes;
    for (auto it = owners.cbegin(); it != owners.cend(); ++it)
        if (it.value().size() > 1)
            clashes << QStringLiteral("%1: %2").arg(it.key()).arg(
                it.value().join(QStringLiteral(", ")));
    return clashes;
}

int mnemonicCount(QWidget* root)
{
    int count = 0;
    for (QAbstractButton* button : root->findChildren<QAbstractButton*>())
        count += mnemonic(button->text()).isNull() ? 0 : 1;
    for (QLabel* label : root->findChildren<QLabel*>())
        count += label->buddy() && !mnemonic(label->text()).isNull() ? 1 : 0;
    return count;
}

} // namespace

class DialogsTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void reasonDialogsStartInReasonWithoutError_data();
    void reasonDialogsStartInReasonWithoutError();
    void enterSubmitsWhenValid();
    void mnemonicsDoNotClash();
    void tabLeavesTables();
    void f1ListsShortcuts();
    void aboutShowsTheBuildVersion();
    void actorDefaultsToUserAtHost();

private:
    test::RedisServer m_redis;
    std::unique_ptr<Session> m_session;
    QTemporaryDir m_dir;
};

void DialogsTest::initTestCase()
{
    TOLLGATE_REQUIRE(m_redis, start());
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    settings.actor = QStringLiteral("operator-jane");
    m_session = std::make_unique<Session>(settings);
    m_session->open();
    QTRY_VERIFY(m_session->state() == ConnectionState::Connected);
}

void DialogsTest::cleanupTestCase()
{
    m_session.reset();
}

void DialogsTest::reasonDialogsStartInReasonWithoutError_data()
{
    QTest::addColumn<int>("kind"); // 0 ban, 1 unban, 2 reset
    QTest::newRow("ban") << 0;
    QTest::newRow("unban") << 1;
    QTest::newRow("reset") << 2;
}

void DialogsTest::reasonDialogsStartInReasonWithoutError()
{
    QFETCH(int, kind);
    QWidget window; // dialogs open on top of something
    window.show();
    QDialog* dialog = nullptr;
    if (kind == 0)
        dialog = new BanDialog(m_session.get(), "mallory", {"like"}, &window);
    else
        dialog = new ReasonDialog(m_session.get(),
                                  kind == 1 ? ReasonDialog::Operation::Unban
                                            : ReasonDialog::Operation::Reset,
                                  "mallory", {"like"}, &window);
    dialog->show();
    QVERIFY(QTest::qWaitForWindowActive(dialog));
    auto* reason = dialog->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit"));
    QVERIFY(reason);
    QTRY_VERIFY(reason->hasFocus());
    auto* error = dialog->findChild<QLabel*>(QStringLiteral("errorLabel"));
    QVERIFY(error->text().isEmpty()); // nothing typed yet: no red text

    // Typed and erased: now the missing reason is an error, shown.
    QTest::keyClicks(reason, QStringLiteral("x"));
    QTest::keyClick(reason, Qt::Key_Backspace);
    QVERIFY(!error->text().isEmpty());
    delete dialog;
}

void DialogsTest::enterSubmitsWhenValid()
{
    const BanRequest request{"oscar", {}, QStringLiteral("tester"), QStringLiteral("spam"),
                             600'000, 0};
    std::optional<bool> banned;
    m_session->moderation().ban(request, this, [&](Result<BanInfo> r) { banned = r.ok(); });
    QTRY_VERIFY(banned.has_value() && *banned);
    const QByteArray banKey = m_session->schema().userBanKey("oscar");

    QWidget window;
    window.show();
    auto* dialog =
        new ReasonDialog(m_session.get(), ReasonDialog::Operation::Unban, "oscar", {{}}, &window);
    QSignalSpy applied(dialog, &ReasonDialog::applied);
    dialog->show();
    QVERIFY(QTest::qWaitForWindowActive(dialog));
    auto* reason = dialog->findChild<QLineEdit*>(QStringLiteral("reasonLineEdit"));
    QTRY_VERIFY(reason->hasFocus());
    QTest::keyClick(reason, Qt::Key_Return); // invalid: nothing happens
    QTest::qWait(200);
    QCOMPARE(applied.count(), 0);
    QCOMPARE(m_redis.command({"EXISTS", banKey}), QByteArray(":1\r\n"));

    QTest::keyClicks(reason, QStringLiteral("appeal"));
    QTest::keyClick(reason, Qt::Key_Return);
    QTRY_COMPARE(applied.count(), 1);
    QCOMPARE(m_redis.command({"EXISTS", banKey}), QByteArray(":0\r\n"));
}

void DialogsTest::mnemonicsDoNotClash()
{
    QWidget window;
    BanDialog ban(m_session.get(), "mallory", {"like"}, &window);
    ReasonDialog unban(m_session.get(), ReasonDialog::Operation::Unban, "mallory", {"like"},
                       &window);
    ReasonDialog reset(m_session.get(), ReasonDialog::Operation::Reset, "mallory", {"like"},
                       &window);
    UserDetailDialog detail(m_session.get(), "mallory");
    ProfileStore profiles(
        std::make_unique<QSettings>(m_dir.filePath(QStringLiteral("p.ini")), QSettings::IniFormat));
    ConnectionDialog connection(&profiles);
    for (QWidget* dialog :
         std::initializer_list<QWidget*>{&ban, &unban, &reset, &detail, &connection}) {
        dialog->show();
        const QStringList clashes = mnemonicClashes(dialog);
        QVERIFY2(clashes.isEmpty(), qPrintable(dialog->objectName() + QStringLiteral(": ") +
                                               clashes.join(QStringLiteral("; "))));
        QVERIFY2(mnemonicCount(dialog) >= 2, qPrintable(dialog->objectName()));
        dialog->hide();
    }
    // Ban, Unban and Reset have their letters in the user detail.
    for (const char* name : {"banButton", "unbanButton", "resetButton"})
        QVERIFY(!mnemonic(detail.findChild<QPushButton*>(QLatin1String(name))->text()).isNull());
}

void DialogsTest::tabLeavesTables()
{
    Session::Settings settings = m_session->settings();
    MainWindow window(nullptr);
    window.setSession(std::make_unique<Session>(settings));
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QWidget* user = window.openUser("mallory");
    QVERIFY(user);
    QVERIFY(QTest::qWaitForWindowExposed(user));
    auto* table = user->findChild<QTableWidget*>(QStringLiteral("actionsTableWidget"));
    QVERIFY(table);
    QVERIFY(!table->tabKeyNavigation());
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Tab);
    QTRY_VERIFY(!table->hasFocus());
    // The pages' tables too.
    for (const QString& key : window.pageKeys()) {
        window.showPage(key);
        for (QAbstractItemView* view : window.page(key)->findChildren<QAbstractItemView*>())
            if (view->isVisible())
                QVERIFY2(!view->tabKeyNavigation(),
                         qPrintable(key + QLatin1Char('/') + view->objectName()));
    }
    user->close();
}

void DialogsTest::f1ListsShortcuts()
{
    MainWindow window(nullptr);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    auto* action = window.findChild<QAction*>(QStringLiteral("shortcutsAction"));
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(QKeySequence::HelpContents));
    QTest::keyClick(&window, Qt::Key_F1);
    shell::ShortcutsDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = window.findChild<shell::ShortcutsDialog*>()) != nullptr);
    QStringList rows;
    for (int r = 0; r < dialog->table()->rowCount(); ++r)
        rows << dialog->table()->item(r, 0)->text() + QLatin1Char('=') +
                    dialog->table()->item(r, 1)->text();
    const QString all = rows.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText) +
                          QStringLiteral("=File \u203a Find user")),
             qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("F1=Help \u203a Keyboard shortcuts")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Ctrl+Shift+O")), qPrintable(all));
    dialog->close();
}

void DialogsTest::aboutShowsTheBuildVersion()
{
    MainWindow window(nullptr);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    auto* action = window.findChild<QAction*>(QStringLiteral("aboutAction"));
    QVERIFY(action);
    action->trigger();
    shell::AboutDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = window.findChild<shell::AboutDialog*>()) != nullptr);
    QVERIFY2(dialog->versionLabel()->text().contains(QString::fromLatin1(kVersion)),
             qPrintable(dialog->versionLabel()->text()));
    auto* details = dialog->findChild<QLabel*>(QStringLiteral("aboutDetailsLabel"));
    QVERIFY(details);
    QVERIFY2(details->text().contains(QStringLiteral("Script contract %1").arg(kScriptContract)),
             qPrintable(details->text()));
    dialog->close();
}

void DialogsTest::actorDefaultsToUserAtHost()
{
    Session::Settings settings;
    settings.connection = *ConnectionOptions::fromUrl(m_redis.url());
    Session session(settings);
    const QString actor = session.actor();
    QVERIFY2(actor.contains(QLatin1Char('@')), qPrintable(actor));
    QVERIFY(actor != QStringLiteral("console"));
    QVERIFY(actor.endsWith(QSysInfo::machineHostName()));
    QCOMPARE(actor, Session::defaultActor());
}

QTEST_MAIN(DialogsTest)
#include "tst_Dialogs.moc"
