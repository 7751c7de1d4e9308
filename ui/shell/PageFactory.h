#pragma once

#include <QByteArray>
#include <QString>
#include <functional>
#include <vector>

class QWidget;

namespace tollgate::ui {

class Session;

/// One page of the main window.
struct PageInfo
{
    QString key;   // "dashboard", "subjects", ... (screenshot file names, tests)
    QString title; // shown in the navigation
    QWidget* widget = nullptr;
    bool available = false; // false: a placeholder, the page is not in this build
};

/// Creates every page in navigation order. Pages whose folder is not in this build are
/// replaced by a placeholder saying so. `openUser` is called when a page asks to show a user.
std::vector<PageInfo> createPages(Session* session, QWidget* parent,
                                  const std::function<void(const QByteArray&)>& openUser = {});

/// Filters the Subjects page `subjects` (a page createPages made) by `text`; false when this
/// build has no Subjects page.
bool filterSubjects(QWidget* subjects, const QString& text);

/// The user detail dialog for `user`, or null when this build has none.
QWidget* createUserDialog(Session* session, const QByteArray& user, QWidget* parent);

/// The value viewer of `key`, or null when this build has none.
QWidget* createKeyViewer(Session* session, const QByteArray& key, QWidget* parent);

} // namespace tollgate::ui
