#pragma once

#include "tollgate/Result.h"

#include <QWidget>
#include <atomic>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace tollgate::ui {

class KeysModel;
class NoTtlPanel;
class Session;

/// The raw keys under the prefix: a background SCAN (never KEYS) under a command budget,
/// capped, filtered by a glob; type, TTL and a value preview fetched for the visible rows
/// first (pipelined), then the rest lazily. Delete… names every key it deletes and asks why. Below
/// it, the "keys without TTL" finder and repair.
class KeysPage : public QWidget
{
    Q_OBJECT
public:
    explicit KeysPage(Session* session, QWidget* parent = nullptr);
    ~KeysPage() override;

    KeysModel* model() const { return m_model; }
    NoTtlPanel* noTtlPanel() const { return m_noTtl; }
    bool isScanning() const { return m_scan != nullptr; }
    /// True while a foreign layout is attached (read-only: no write buttons).
    bool isForeign() const;

    void startScan();
    void cancelScan();
    /// Asks for a reason naming the keys, then deleteKeys().
    void deleteSelected();
    /// Through the scripts (core KeyDeletion): audited with the actor and `reason`.
    void deleteKeys(const QList<QByteArray>& keys, const QString& reason);

Q_SIGNALS:
    void scanFinished(qint64 keys);

protected:
    /// The first time the page is shown it scans by itself: an empty table helps nobody.
    void showEvent(QShowEvent* event) override;

private:
    struct ScanJob
    {
        std::atomic<bool> cancelled{false};
    };

    void onBatch(const QList<QByteArray>& keys);
    /// Hands the gathered keys to the table, at most kApplyMax at a time.
    void applyPending();
    /// The scan's end, once its last keys are in the table.
    void finishScan();
    void fetchVisible();
    QPair<int, int> visibleRows() const;
    void fetchMore();
    /// `inFlight`: the counter of fetches this one belongs to (m_detailsInFlight by default).
    void fetchDetails(const QList<QByteArray>& keys, int* inFlight = nullptr);
    void rereadVisible();
    void updateButtons();

    Session* m_session;
    KeysModel* m_model;
    QLineEdit* m_pattern;
    QLineEdit* m_template;
    QPushButton* m_scanButton;
    QPushButton* m_cancelButton;
    QPushButton* m_deleteButton;
    QLabel* m_status;
    QTableView* m_table;
    QTimer* m_lazyTimer;
    QTimer* m_applyTimer;
    QList<QByteArray> m_pending;             // keys SCAN found, not in the table yet
    std::optional<Result<qint64>> m_scanEnd; // the SCAN is over; its keys may still be pending
    NoTtlPanel* m_noTtl;
    std::shared_ptr<ScanJob> m_scan;
    quint64 m_generation = 0;
    qint64 m_totalKeys = 0; // DBSIZE when the scan started, for the progress line
    int m_detailsInFlight = 0;
    int m_rereadsInFlight = 0; // re-reads of the rows on screen
    bool m_scannedOnce = false;
    int m_sortColumn = -1; // the header's last sortable choice
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace tollgate::ui
