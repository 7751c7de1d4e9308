#pragma once

#include "ui/shell/PageFactory.h"

#include <QMainWindow>
#include <QPointer>
#include <memory>

class QActionGroup;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QStackedWidget;

namespace tollgate::ui {

class CommandRateLabel;
class ConnectionBanner;
class ProfileStore;
class Session;
namespace shell {
class WriteActions;
}

/// The console window: the connection banner on top, navigation on the left (Ctrl+1..8),
/// the pages, "Find user" (Ctrl+F) and a status bar with the server version and the
/// operator's role. Owns the session; pages are rebuilt when it changes.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(ProfileStore* profiles, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Replaces the session (pages are rebuilt) and opens it.
    void setSession(std::unique_ptr<Session> session);
    Session* session() const { return m_session.get(); }

    QStringList pageKeys() const;
    QWidget* page(const QString& key) const;
    void showPage(const QString& key);
    QString currentPageKey() const;
    /// Opens the user detail dialog (non-modal); null when this build has none.
    QWidget* openUser(const QByteArray& user);
    /// Opens the value viewer of `key` (non-modal); null when this build has none.
    QWidget* openKey(const QByteArray& key);

    ConnectionBanner* banner() const { return m_banner; }

    /// Shows the connection dialog; a new session replaces the current one when accepted.
    void showConnectionDialog();
    /// Help › Keyboard shortcuts (F1).
    void showShortcuts();
    /// Help › About Tollgate: version and script contract.
    void showAbout();

Q_SIGNALS:
    void sessionChanged(tollgate::ui::Session* session);

private:
    void buildMenus();
    /// View › Palette: system, light or dark, switched live.
    void addPaletteMenu(QMenu* view);
    void clearPages();
    void dropSession();
    void buildPages();
    void refreshStatus();
    void findUser();
    /// Shows a user detail or value viewer made for the current session, as its own window.
    QWidget* showDetached(QWidget* dialog, const QString& missing);

    ProfileStore* m_profiles;
    std::unique_ptr<Session> m_session;
    std::vector<PageInfo> m_pages;
    QList<QPointer<QWidget>> m_dialogs; // user details, value viewers: they hold the session too
    shell::WriteActions* m_writes;
    ConnectionBanner* m_banner;
    QListWidget* m_navigation;
    QStackedWidget* m_stack;
    QActionGroup* m_pageActions;
    QAction* m_pagesEnd; // View menu: the page entries come before it
    QLineEdit* m_findUser;
    QLabel* m_serverLabel;
    QLabel* m_roleLabel;
    CommandRateLabel* m_load;
};

} // namespace tollgate::ui
