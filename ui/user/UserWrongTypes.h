#pragma once

#include "ui/user/UserActions.h"
#include "ui/user/WrongTypeKeys.h"

#include <QObject>
#include <vector>

class QPushButton;
class QWidget;

namespace tollgate::ui {

/// The user detail's keys of the wrong type: when a verdict failed with WRONGTYPE, finds the
/// keys of the user's verdicts that hold another type, says which and what they break, names
/// the key in the failed rows, and offers Repair… (deleteWrongTypeKeys: a reason, an audit
/// entry per key). The button is shown only while such a key is there.
class UserWrongTypes : public QObject
{
    Q_OBJECT
public:
    UserWrongTypes(Session* session, const QByteArray& user, QWidget* dialog);

    QPushButton* repairButton() const { return m_repair; }

    /// After a load: looks for the keys when a row failed with WRONGTYPE, or clears what was
    /// shown once none does.
    void check(const UserActions& loaded);
    /// The failed rows of `loaded` name the first key found instead of Redis' bare WRONGTYPE.
    void nameKeys(UserActions& loaded) const;

Q_SIGNALS:
    /// Keys were found (`text` says which and what to do), or none is left (`text` empty).
    void changed(const QString& text);
    /// Repair… deleted them; `message` says how many.
    void repaired(const QString& message);
    void failed(const QString& what, const tollgate::Error& error);

private:
    void show(std::vector<WrongTypeKey> keys);
    void repair();

    Session* m_session;
    QByteArray m_user;
    QWidget* m_dialog;
    QPushButton* m_repair;
    std::vector<WrongTypeKey> m_keys;
};

} // namespace tollgate::ui
