#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSize>
#include <QStringList>

namespace tollgate::ui {

class MainWindow;

/// `tollgate --screenshots DIR`: after a warm-up, shows each page in turn at `size` (default
/// 1280x800) and saves QWidget::grab() to DIR/<page>.png, plus DIR/user.png (the detail of
/// one user) and any added with addUser(), then emits finished. Timers only: no nested event loops.
class ScreenshotTour : public QObject
{
    Q_OBJECT
public:
    ScreenshotTour(MainWindow* window, QString directory, QByteArray user,
                   QObject* parent = nullptr);

    void start(int warmUpMs = 8000);
    /// The window size for the pictures (people use the console from 1024x700 up).
    void setSize(const QSize& size) { m_size = size; }
    /// Another user detail to take, as DIR/<step>.png, right after DIR/user.png (e.g. a user
    /// with overrides). Before start().
    void addUser(const QString& step, const QByteArray& user) { m_users.append({step, user}); }

Q_SIGNALS:
    /// ok = every picture was written; `failed` names the ones that were not.
    void finished(bool ok, const QStringList& failed);

private:
    void next();
    void capture(QWidget* widget, const QString& name);
    /// Captures the page of `step` once it has loaded (or `patienceMs` ran out), then next().
    void captureWhenLoaded(const QString& step, int patienceMs);
    /// Opens the user detail's Unban dialog and captures it; false when the user has no ban.
    bool captureUnban();
    /// The user of a user detail step, or null for other steps.
    const QByteArray* userOf(const QString& step) const;

    QPointer<MainWindow> m_window;
    QString m_directory;
    QList<QPair<QString, QByteArray>> m_users; // user detail steps: name, user
    QStringList m_steps;
    QStringList m_failed;
    QPointer<QWidget> m_userDialog;
    QSize m_size{1280, 800};
};

} // namespace tollgate::ui
