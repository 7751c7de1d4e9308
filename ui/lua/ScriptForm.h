#pragma once

#include "core/redis/RespCodec.h"

#include <QWidget>

class QFormLayout;

namespace tollgate {
struct ScriptInfo;
}

namespace tollgate::ui {

/// Input fields for one script, built from its header: a line edit per "KEYS[i]" / "ARGV[i]"
/// line, a multi-line field (one item per line) for variadic ones such as "KEYS[4..3+n]".
class ScriptForm : public QWidget
{
    Q_OBJECT
public:
    explicit ScriptForm(QWidget* parent = nullptr);

    void setScript(const ScriptInfo& script);
    /// Fills every "actor" argument with the operator and locks it: the audit trail names
    /// who ran a script, not what someone typed.
    void setActor(const QString& actor);
    Command keys() const;
    Command args() const;

private:
    struct Field
    {
        QWidget* editor;
        bool variadic;
    };
    void addFields(const QStringList& lines, const QString& prefix, QList<Field>& fields);
    static Command collect(const QList<Field>& fields);

    QFormLayout* m_layout;
    QList<Field> m_keys;
    QList<Field> m_args;
    QString m_actor;
};

} // namespace tollgate::ui
