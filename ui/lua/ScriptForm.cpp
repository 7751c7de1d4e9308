#include "ui/lua/ScriptForm.h"

#include "core/scripts/ScriptLibrary.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>

namespace tollgate::ui {

ScriptForm::ScriptForm(QWidget* parent) : QWidget(parent)
{
    m_layout = new QFormLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
}

void ScriptForm::setScript(const ScriptInfo& script)
{
    while (m_layout->rowCount() > 0)
        m_layout->removeRow(0);
    m_keys.clear();
    m_args.clear();
    addFields(script.keys, QStringLiteral("keys"), m_keys);
    addFields(script.args, QStringLiteral("argv"), m_args);
}

// "KEYS[4..3+n]  one state key per window ..." -> label KEYS[4..3+n], a multi-line field.
void ScriptForm::setActor(const QString& actor)
{
    m_actor = actor;
}

void ScriptForm::addFields(const QStringList& lines, const QString& prefix, QList<Field>& fields)
{
    static const QRegularExpression head(
        QStringLiteral("^((?:KEYS|ARGV)\\[(\\d+)([^\\]]*)\\])\\s*(.*)$"));
    for (const QString& line : lines) {
        const QRegularExpressionMatch match = head.match(line);
        if (!match.hasMatch())
            continue;
        const QString label = match.captured(1);
        const QString index = match.captured(2);
        const bool variadic = match.captured(3).contains(QStringLiteral(".."));
        const QString description = match.captured(4);
        QWidget* editor = nullptr;
        if (variadic) {
            auto* text = new QPlainTextEdit(this);
            text->setObjectName(prefix + index + QStringLiteral("PlainTextEdit"));
            text->setPlaceholderText(tr("one per line: %1").arg(description));
            text->setTabChangesFocus(true);
            text->setFixedHeight(text->fontMetrics().lineSpacing() * 4 + 12);
            editor = text;
        } else {
            auto* edit = new QLineEdit(this);
            edit->setObjectName(prefix + index + QStringLiteral("LineEdit"));
            edit->setPlaceholderText(description);
            if (prefix == QLatin1String("argv") && !m_actor.isEmpty() &&
                description.startsWith(QStringLiteral("actor"))) {
                edit->setText(m_actor);
                edit->setReadOnly(true);
            }
            editor = edit;
        }
        editor->setToolTip(line);
        auto* caption = new QLabel(label, this);
        caption->setToolTip(line);
        m_layout->addRow(caption, editor);
        fields.append({editor, variadic});
    }
}

Command ScriptForm::collect(const QList<Field>& fields)
{
    Command values;
    for (const Field& field : fields) {
        if (!field.variadic) {
            values << static_cast<QLineEdit*>(field.editor)->text().toUtf8();
            continue;
        }
        const QString text = static_cast<QPlainTextEdit*>(field.editor)->toPlainText();
        for (const QString& item : text.split(QLatin1Char('\n')))
            if (!item.isEmpty())
                values << item.toUtf8();
    }
    return values;
}

Command ScriptForm::keys() const
{
    return collect(m_keys);
}

Command ScriptForm::args() const
{
    return collect(m_args);
}

} // namespace tollgate::ui
