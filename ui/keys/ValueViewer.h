#pragma once

#include "tollgate/Reply.h"

#include <QDialog>

class QLabel;
class QTableWidget;
class QTimer;

namespace tollgate::ui {

class Session;
struct ValueContext;

/// Reads one key and shows its value, read-only (ValueDecoding): by type, and Tollgate's own
/// keys as what they mean (a token bucket's tokens, a sliding log's hits, the statistics
/// ring...). Large values show kMaxItems entries and say so. The TTL and the value are read
/// again every few seconds while the viewer is open, and at once when the TTL runs out on
/// screen (a key renewed by every hit keeps a TTL under a second); a key of the wrong type for
/// its place in the schema is flagged.
class ValueViewer : public QDialog
{
    Q_OBJECT
public:
    static constexpr int kMaxItems = 200;

    ValueViewer(Session* session, const QByteArray& key, QWidget* parent = nullptr);

    const QByteArray& key() const { return m_key; }
    QByteArray type() const { return m_type; }
    QTableWidget* table() const { return m_table; }

public Q_SLOTS:
    /// Reads the key again; `quiet`: without "Loading…" (the periodic re-read).
    void reload(bool quiet = false);

Q_SIGNALS:
    /// A load finished (successfully or with the error shown).
    void loaded();

private:
    void onType(const QByteArray& type, qint64 pttl);
    void showValue(const Reply& value, const ValueContext& context);
    void showRows(const QStringList& headers, const QList<QStringList>& rows);
    void showError(const QString& text);
    void tick();

    Session* m_session;
    QByteArray m_key;
    QByteArray m_type;
    QLabel* m_summary;
    QLabel* m_meaning;
    QLabel* m_flag;
    QLabel* m_ttl;
    QTableWidget* m_table;
    QTimer* m_ticker;
    qint64 m_expiresAt = 0; // steady-clock ms; 0 = no TTL
    qint64 m_readAt = 0;    // steady-clock ms of the last read
    bool m_reading = false;
    int m_generation = 0;
};

} // namespace tollgate::ui
