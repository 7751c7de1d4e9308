#pragma once

#include "core/keys/PatternRepair.h"
#include "tollgate/Repair.h"

#include <QWidget>
#include <atomic>
#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

namespace tollgate::ui {

class NoTtlModel;
class Session;

/// "Keys without TTL": a dry run of core Repair (SCAN + repair.lua) lists the keys of ours
/// that would never expire; Repair selected / Repair all give them their TTL, with a progress
/// bar, a count of what was fixed, and Cancel. Below, the same for another client's keys
/// (core PatternRepair): a pattern, the TTL to give and a cap in keys a second; Find by pattern
/// lists them, Give TTL… asks why and fixes them.
class NoTtlPanel : public QWidget
{
    Q_OBJECT
public:
    explicit NoTtlPanel(Session* session, QWidget* parent = nullptr);
    ~NoTtlPanel() override;

    NoTtlModel* model() const { return m_model; }
    bool isBusy() const { return m_job != nullptr; }

    void find();
    /// Ask for a reason (naming the keys), then fix: every write says why.
    void repairSelected();
    void repairAll();
    /// Another client's keys matching the pattern field: list them (dry run), or ask for a
    /// reason and give them the TTL field's TTL.
    void findByPattern();
    void repairByPattern();
    /// Keys of the wrong type (the selected ones, else every one listed): ask for a reason
    /// naming each and what it breaks, then delete them through the scripts, audited.
    void deleteWrongType();
    /// Fixes exactly these keys (core Repair::fixKeys), audited with `reason`.
    void fixKeys(const QList<QByteArray>& keys, const QString& reason);
    void cancel();

Q_SIGNALS:
    void finished();
    /// Keys whose TTL was just set.
    void repaired(const QList<QByteArray>& keys);

private:
    struct Job
    {
        std::atomic<bool> cancelled{false};
        QList<QByteArray> fixed; // streamed in by a "Repair all"; GUI thread only
    };

    std::shared_ptr<Job> begin(const QString& status, int maximum);
    void end(const QString& status);
    void runRepair(bool fix, const QString& reason, bool byPattern = false);
    // The pattern fields as options; the error is shown in the status line.
    std::optional<PatternRepairOptions> patternOptions();
    void showProgress(const std::shared_ptr<Job>& job, bool fix, const RepairProgress& progress);
    void finishRepair(const std::shared_ptr<Job>& job, bool fix, Result<RepairReport> report);
    void updateButtons();

    Session* m_session;
    NoTtlModel* m_model;
    QTableView* m_table;
    QPushButton* m_find;
    QPushButton* m_repairSelected;
    QPushButton* m_repairAll;
    QPushButton* m_cancel;
    QPushButton* m_deleteWrongType;
    QLineEdit* m_pattern;
    QLineEdit* m_patternTtl;
    QSpinBox* m_patternRate;
    QPushButton* m_findPattern;
    QPushButton* m_repairPattern;
    bool m_showsPattern = false; // the table holds another client's keys: fixed by pattern only
    QProgressBar* m_progress;
    QLabel* m_status;
    std::shared_ptr<Job> m_job;
};

} // namespace tollgate::ui
