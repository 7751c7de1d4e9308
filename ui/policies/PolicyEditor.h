#pragma once

#include "tollgate/Policy.h"

#include <QWidget>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace tollgate::ui {

class PolicyPreview;
class Session;
class WindowRows;

/// The form of one policy: validates on every edit (Policy::validate), saves with
/// compare-and-set on the revision it loaded, and handles the conflict when someone else saved
/// first. Also shows a debounced preview of how many current subjects the edited limits deny.
class PolicyEditor : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kPreviewRefreshMs = 5000;

    explicit PolicyEditor(Session* session, QWidget* parent = nullptr);

    /// Shows `policy` for editing; its revision is the one Save compares against.
    void load(const Policy& policy);
    /// An empty form for a new action (revision 0: Save fails if the action exists by then).
    void startNew();

    /// The policy as the form describes it, or why the form does not describe a valid one.
    Result<Policy> editedPolicy() const;
    QByteArray loadedAction() const { return m_loaded.action; }
    qint64 loadedRevision() const { return m_loaded.revision; }
    /// True while the form differs from what was loaded (typing a value back is no change).
    bool isModified() const { return m_changed; }

    void save();

Q_SIGNALS:
    void saved(const QByteArray& action, qint64 revision);
    /// isModified() changed: the page marks unsaved edits.
    void modifiedChanged(bool modified);

private:
    void buildTimeAndFailureFields();
    void onEdited();
    void revalidate();
    void updateSaveButton();
    /// After the reason: waits for the preview of `policy`, asks if it denies subjects now.
    void checkPreviewThenSave(const Policy& policy);
    void saveWithRevision(Policy policy);
    void resolveConflict(const Policy& mine, const Error& error);
    void fillForm(const Policy& policy);
    /// After a policy event for the loaded action: reloads an untouched form, or says that
    /// the policy changed underneath the edits.
    void checkUnderneath();
    void onPreviewCounted(const Policy& policy, int denied, int subjects);
    static bool samePolicy(const Policy& a, const Policy& b);

    struct PreviewCount
    {
        Policy policy;
        int denied = 0;
        int subjects = 0;
    };

    Session* m_session;
    Policy m_loaded;
    bool m_modified = false; // something was typed since the load
    bool m_changed = false;  // and the form differs from the load (isModified)
    bool m_valid = false;
    bool m_saving = false;
    bool m_filling = false;
    QString m_saveReason; // the operator's reason for the save under way

    QLineEdit* m_action;
    QComboBox* m_algorithm;
    WindowRows* m_windows;
    QPushButton* m_addWindow;
    QSpinBox* m_cost;
    QSpinBox* m_warn;
    QComboBox* m_banMode;
    QLineEdit* m_banDuration;
    QComboBox* m_align;    // windows from the first hit, or on the local clock (calendar)
    QComboBox* m_timeZone; // IANA zone of midnight bans and calendar windows
    QComboBox* m_onError;  // what a hit answers when Redis cannot
    QCheckBox* m_countDenied;
    QCheckBox* m_shadow;
    QLineEdit* m_message;
    QLabel* m_revision;
    QLabel* m_error;
    QLabel* m_preview;
    QLabel* m_underneath;
    std::optional<PreviewCount> m_lastPreview;
    std::optional<Policy> m_saveAfterPreview; // Save waits for the preview of this policy
    QPushButton* m_save;
    QTimer* m_previewTimer;
    PolicyPreview* m_previewer;
};

} // namespace tollgate::ui
