#pragma once

#include <QByteArray>
#include <QObject>
#include <functional>

class QAbstractItemView;
class QMenu;
class QModelIndex;

namespace tollgate::ui {

class Session;

/// What a right-click, a double-click or Enter does on a table of raw keys: double-click and
/// Enter open the value viewer; the context menu offers View value, Copy key, Copy (the
/// selected rows, as on every table), Open user (for keys in a user's slot) and, when given,
/// Delete… . Shared by the Keys page and the no-TTL finder so both behave the same.
class KeyActions : public QObject
{
    Q_OBJECT
public:
    using KeyAt = std::function<QByteArray(const QModelIndex& index)>;

    /// `keyAt` maps a row of `view` to its raw key (empty: no key there). `deleteSelected`
    /// may be empty (no Delete… entry, e.g. for a read-only foreign layout).
    KeyActions(Session* session, QAbstractItemView* view, KeyAt keyAt,
               std::function<void()> deleteSelected = {});

    /// Opens the value viewer of `key` (non-modal; one per key, raised when open already).
    QWidget* view(const QByteArray& key);
    /// Opens the user detail of the user whose slot holds `key`; null when it is in none.
    QWidget* openUser(const QByteArray& key);
    /// The context menu for `index`, for tests; the caller owns it.
    QMenu* menuFor(const QModelIndex& index);

private:
    Session* m_session;
    QAbstractItemView* m_view;
    KeyAt m_keyAt;
    std::function<void()> m_delete;
};

} // namespace tollgate::ui
