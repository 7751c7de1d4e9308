#include "ui/shell/MainWindow.h"

#include "ui/common/CommandRateLabel.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/PaletteChoice.h"
#include "ui/common/Session.h"
#include "ui/common/StaleMark.h"
#include "ui/common/Widgets.h"
#include "ui/connection/ConnectionBanner.h"
#include "ui/connection/ConnectionDialog.h"
#include "ui/connection/ProfileStore.h"
#include "ui/connection/ServerText.h"
#include "ui/shell/AboutDialog.h"
#include "ui/shell/ShortcutsDialog.h"
#include "ui/shell/TableActions.h"
#include "ui/shell/TableTabFilter.h"
#include "ui/shell/WriteActions.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>

namespace tollgate::ui {

MainWindow::MainWindow(ProfileStore* profiles, QWidget* parent)
    : QMainWindow(parent), m_profiles(profiles)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Tollgate"));
    if (!m_profiles)
        m_profiles = new ProfileStore({}, this);
    m_writes = new shell::WriteActions(this);
    shell::TableTabFilter::install();
    shell::TableActions::install();

    m_banner = new ConnectionBanner;
    m_navigation = new QListWidget;
    m_navigation->setObjectName(QStringLiteral("navigationListWidget"));
    m_navigation->setFixedWidth(170);
    m_navigation->setSpacing(2);
    m_navigation->setFrameShape(QFrame::NoFrame);
    m_navigation->setStyleSheet(
        QStringLiteral("#navigationListWidget { background: palette(window); font-size: 11pt; }"
                       "#navigationListWidget::item { padding: 6px 10px; }"));
    m_stack = new QStackedWidget;
    m_stack->setObjectName(QStringLiteral("pageStackedWidget"));

    auto* body = new QHBoxLayout;
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(0);
    body->addWidget(m_navigation);
    body->addWidget(m_stack, 1);
    auto* central = new QWidget;
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_banner);
    layout->addLayout(body, 1);
    setCentralWidget(central);

    // Elided: a long endpoint or actor never widens the window.
    m_serverLabel = new ElidedLabel;
    m_serverLabel->setObjectName(QStringLiteral("serverLabel"));
    m_roleLabel = new ElidedLabel;
    m_roleLabel->setObjectName(QStringLiteral("roleLabel"));
    statusBar()->addWidget(m_serverLabel);
    m_load = new CommandRateLabel;
    statusBar()->addPermanentWidget(m_load);
    statusBar()->addPermanentWidget(m_roleLabel);

    buildMenus();
    buildPages();
    connect(m_navigation, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0)
            return;
        m_stack->setCurrentIndex(row);
        const auto actions = m_pageActions->actions();
        if (row < actions.size())
            actions.at(row)->setChecked(true);
    });

    fitToScreen(this, QSize(1280, 800)); // on a smaller screen, what it has
    refreshStatus();
}

MainWindow::~MainWindow()
{
    dropSession();
}

void MainWindow::dropSession()
{
    // The session goes first: deleting it stops its client threads, so no reply can arrive
    // for a page that is being deleted. No page uses the session in its destructor.
    // Hidden first, so deleting the current page does not show (and refresh) the next one.
    m_stack->hide();
    m_banner->setSession(nullptr);
    m_writes->setSession(nullptr);
    m_load->setClient(nullptr);
    m_session.reset();
    for (const QPointer<QWidget>& dialog : std::as_const(m_dialogs))
        delete dialog.data();
    m_dialogs.clear();
    clearPages();
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* connectAction =
        file->addAction(tr("&Connect\u2026"), this, &MainWindow::showConnectionDialog);
    connectAction->setObjectName(QStringLiteral("connectAction"));
    connectAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+O")));
    QAction* findAction = file->addAction(tr("&Find user\u2026"));
    findAction->setObjectName(QStringLiteral("findUserAction"));
    findAction->setShortcut(QKeySequence::Find);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_pageActions = new QActionGroup(this);
    m_pageActions->setExclusive(true);
    view->setObjectName(QStringLiteral("viewMenu"));
    m_pagesEnd = view->addSeparator(); // the pages go above it
    addPaletteMenu(view);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction* shortcuts =
        help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts);
    shortcuts->setObjectName(QStringLiteral("shortcutsAction"));
    shortcuts->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About Tollgate"), this, &MainWindow::showAbout)
        ->setObjectName(QStringLiteral("aboutAction"));

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setMovable(false);
    toolbar->addAction(connectAction);
    toolbar->addSeparator();
    m_findUser = new QLineEdit;
    m_findUser->setObjectName(QStringLiteral("findUserLineEdit"));
    m_findUser->setPlaceholderText(tr("Find user, or prefix* (Ctrl+F)"));
    m_findUser->setClearButtonEnabled(true);
    m_findUser->setMaximumWidth(320);
    toolbar->addWidget(m_findUser);
    connect(findAction, &QAction::triggered, this, [this] {
        m_findUser->setFocus(Qt::ShortcutFocusReason);
        m_findUser->selectAll();
    });
    connect(m_findUser, &QLineEdit::returnPressed, this, &MainWindow::findUser);
}

void MainWindow::addPaletteMenu(QMenu* view)
{
    QMenu* palette = view->addMenu(tr("&Palette"));
    palette->setObjectName(QStringLiteral("paletteMenu"));
    auto* choices = new QActionGroup(palette);
    for (const auto& [choice, text] : {std::pair{PaletteChoice::System, tr("&System")},
                                       std::pair{PaletteChoice::Light, tr("&Light")},
                                       std::pair{PaletteChoice::Dark, tr("&Dark")}}) {
        QAction* action = palette->addAction(text, this, [choice] { applyPaletteChoice(choice); });
        action->setObjectName(paletteChoiceName(choice) + QStringLiteral("PaletteAction"));
        action->setCheckable(true);
        action->setData(int(choice));
        choices->addAction(action);
    }
    // Also --palette and the remembered choice, applied after the menu was built.
    connect(palette, &QMenu::aboutToShow, palette, [choices] {
        for (QAction* action : choices->actions())
            action->setChecked(action->data().toInt() == int(currentPaletteChoice()));
    });
}

void MainWindow::clearPages()
{
    m_navigation->clear();
    for (QAction* action : m_pageActions->actions())
        delete action;
    for (const PageInfo& page : m_pages)
        delete page.widget;
    m_pages.clear();
}

void MainWindow::buildPages()
{
    clearPages();
    m_pages =
        createPages(m_session.get(), m_stack, [this](const QByteArray& user) { openUser(user); });
    QMenu* view = menuBar()->findChild<QMenu*>(QStringLiteral("viewMenu"));
    for (int i = 0; i < int(m_pages.size()); ++i) {
        const PageInfo& page = m_pages[size_t(i)];
        m_stack->addWidget(page.widget);
        if (m_session) // every page's figures grey while Redis is not responding
            markStaleWhileUnresponsive(m_session.get(), {page.widget});
        m_navigation->addItem(page.title);
        auto* action = new QAction(page.title, view);
        view->insertAction(m_pagesEnd, action);
        action->setObjectName(page.key + QStringLiteral("PageAction"));
        action->setCheckable(true);
        action->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
        m_pageActions->addAction(action);
        connect(action, &QAction::triggered, this, [this, i] { m_navigation->setCurrentRow(i); });
    }
    m_navigation->setCurrentRow(0);
    m_stack->show();
    m_writes->setSession(m_session.get());
}

void MainWindow::setSession(std::unique_ptr<Session> session)
{
    const QString current = currentPageKey(); // stay on it with the new session
    dropSession();
    m_session = std::move(session);
    buildPages();
    showPage(current);
    m_banner->setSession(m_session.get());
    if (m_session) {
        m_load->setClient(m_session->client());
        connect(m_session.get(), &Session::stateChanged, this, &MainWindow::refreshStatus);
        connect(m_session.get(), &Session::permissionsChanged, this, &MainWindow::refreshStatus);
        connect(m_session->client(), &Client::nodeChanged, this, &MainWindow::refreshStatus);
        setWindowTitle(tr("Tollgate \u2014 %1")
                           .arg(m_session->settings().profileName.isEmpty()
                                    ? m_session->settings().connection.endpoint()
                                    : m_session->settings().profileName));
        m_session->open();
    }
    refreshStatus();
    Q_EMIT sessionChanged(m_session.get());
}

QStringList MainWindow::pageKeys() const
{
    QStringList keys;
    for (const PageInfo& page : m_pages)
        keys << page.key;
    return keys;
}

QWidget* MainWindow::page(const QString& key) const
{
    for (const PageInfo& page : m_pages)
        if (page.key == key)
            return page.widget;
    return nullptr;
}

void MainWindow::showPage(const QString& key)
{
    const int row = int(pageKeys().indexOf(key));
    if (row >= 0)
        m_navigation->setCurrentRow(row);
}

QString MainWindow::currentPageKey() const
{
    const int row = m_navigation->currentRow();
    return row >= 0 && row < int(m_pages.size()) ? m_pages[size_t(row)].key : QString();
}

QWidget* MainWindow::openUser(const QByteArray& user)
{
    if (!m_session || user.isEmpty())
        return nullptr;
    return showDetached(createUserDialog(m_session.get(), user, this),
                        tr("User details are not part of this build yet."));
}

QWidget* MainWindow::openKey(const QByteArray& key)
{
    if (!m_session || key.isEmpty())
        return nullptr;
    return showDetached(createKeyViewer(m_session.get(), key, this),
                        tr("The key browser is not part of this build yet."));
}

QWidget* MainWindow::showDetached(QWidget* dialog, const QString& missing)
{
    if (!dialog) {
        statusBar()->showMessage(missing, 5000);
        return nullptr;
    }
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowFlag(Qt::Window);
    m_dialogs.removeAll(nullptr);
    m_dialogs << dialog;
    dialog->show();
    return dialog;
}

void MainWindow::findUser()
{
    const QString text = m_findUser->text().trimmed();
    // Ids never hold a raw "*" (escaping writes it %2A): a "*" asks for every id it matches,
    // which is the Subjects page's prefix filter, not one (empty) user.
    if (text.contains(QLatin1Char('*'))) {
        if (filterSubjects(page(QStringLiteral("subjects")), text))
            showPage(QStringLiteral("subjects"));
        else
            statusBar()->showMessage(tr("Finding users by prefix needs the Subjects page."), 5000);
        return;
    }
    if (!text.isEmpty())
        openUser(text.toUtf8());
}

void MainWindow::showConnectionDialog()
{
    auto* dialog = new ConnectionDialog(m_profiles, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { setSession(std::make_unique<Session>(dialog->sessionSettings())); });
    dialog->open();
}

void MainWindow::showShortcuts()
{
    auto* dialog = new shell::ShortcutsDialog(this, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::showAbout()
{
    auto* dialog = new shell::AboutDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::refreshStatus()
{
    if (!m_session) {
        m_serverLabel->setText(tr("Not connected"));
        m_roleLabel->clear();
        return;
    }
    const Session::Settings& settings = m_session->settings();
    const QString user =
        settings.connection.user.isEmpty() ? QStringLiteral("default") : settings.connection.user;
    int denied = 0;
    for (int w = 0; w < Session::kWriteCount; ++w)
        denied += m_session->canWrite(Session::Write(w)) ? 0 : 1;
    QString role;
    if (m_session->state() != ConnectionState::Connected && !m_session->isReadOnly())
        // Rights are checked on the server; until it answers, claim none.
        role = tr("ACL user %1: not connected, no writes \u00b7 actor %2")
                   .arg(user, m_session->actor());
    else if (m_session->isReadOnly())
        role = tr("Read-only profile \u00b7 ACL user %1 \u00b7 actor %2")
                   .arg(user, m_session->actor());
    else if (!m_session->permissionsUnknownReason().isEmpty())
        role = tr("ACL user %1: write rights unknown, writes disabled \u00b7 actor %2")
                   .arg(user, m_session->actor());
    else if (denied > 0)
        role = tr("ACL user %1: %2 of %3 write actions not permitted \u00b7 actor %4")
                   .arg(user)
                   .arg(denied)
                   .arg(Session::kWriteCount)
                   .arg(m_session->actor());
    else
        role = tr("ACL user %1: read and write \u00b7 actor %2").arg(user, m_session->actor());
    m_roleLabel->setText(role);
    m_roleLabel->setToolTip(m_session->permissionsUnknownReason());

    if (m_session->state() != ConnectionState::Connected) {
        m_serverLabel->setText(tr("Redis at %1").arg(serverText(*m_session->client())));
        return;
    }
    // On every primary: a Twemproxy proxy answers no INFO, its backends do.
    m_session->client()->executeOnEveryPrimary(
        {QByteArrayLiteral("INFO"), QByteArrayLiteral("server")}, m_serverLabel,
        [this, endpoint = serverText(*m_session->client()),
         modeNamed = settings.connection.sentinel.enabled() ||
                     settings.connection.twemproxy.enabled](std::vector<Result<Reply>> replies) {
            QString version = tr("unknown version");
            QString mode;
            const auto answered = std::find_if(replies.begin(), replies.end(),
                                               [](const Result<Reply>& r) { return r.ok(); });
            if (answered != replies.end()) {
                const Result<Reply>& reply = *answered;
                for (const QByteArray& line : reply->toBytes().split('\n')) {
                    if (line.startsWith("redis_version:"))
                        version = QString::fromUtf8(line.mid(14).trimmed());
                    // "standalone" would contradict "primary of ... (Sentinel)" or a pool
                    else if (line.startsWith("redis_mode:") && !modeNamed)
                        mode = QString::fromUtf8(line.mid(11).trimmed());
                }
            }
            m_serverLabel->setText(
                tr("Redis %1%2 at %3")
                    .arg(version, mode.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(mode),
                         endpoint));
        });
}

} // namespace tollgate::ui
