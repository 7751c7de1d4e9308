#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace tollgate::ui {

class ScriptForm;
class ScriptsModel;
class Session;

/// The library's Lua scripts: name, SHA1, whether the server has them cached, the header
/// (KEYS / ARGV / reply), and a form to run the selected one by hand (EVALSHA via runScript).
class LuaPage : public QWidget
{
    Q_OBJECT
public:
    explicit LuaPage(Session* session, QWidget* parent = nullptr);

    ScriptsModel* model() const { return m_model; }
    /// SCRIPT EXISTS for every library script.
    void refreshLoaded();
    void selectScript(const QString& name);
    void run();

Q_SIGNALS:
    void replyShown();

protected:
    /// Whether the server has each script changes behind our back (restarts, other
    /// clients): ask again whenever the page comes into view.
    void showEvent(QShowEvent* event) override;

private:
    void showScript(int row);
    void updateRunButton();

    Session* m_session;
    ScriptsModel* m_model;
    QTableView* m_table;
    QPushButton* m_refresh;
    QLabel* m_summary;
    QPlainTextEdit* m_header;
    ScriptForm* m_form;
    QPushButton* m_run;
    QPlainTextEdit* m_reply;
    QString m_current;
    bool m_running = false;
};

} // namespace tollgate::ui
