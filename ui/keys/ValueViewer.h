#pragma once

#include "core/redis/Reply.h"

#include <QDialog>

class QLabel;
class QTableWidget;
class QTimer;

namespace tollgate::ui {

class Session;

/// Reads one key and shows its value by type, read-only: a string as text; a hash as fields
/// (ban hashes, sliding-window counters, policies); a zset as members and scores (sliding
/// logs: the scores are hit times, shown as times); a stream as entries newest first (audit
/// trails); lists and sets as items. Large values show their first kMaxItems entries and say
/// so. The TTL counts down; a key of the wrong type for its place in the schema is flagged.
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
    void reload();

Q_SIGNALS:
    /// A load finished (successfully or with the error shown).
    void loaded();

private:
    void onType(const QByteArray& type, qint64 pttl);
    void showValue(const Reply& size, const Reply& value);
    void showRows(const QStringList& headers, const QList<QStringList>& rows);
    void showError(const QString& text);
    void tick();

    Session* m_session;
    QByteArray m_key;
    QByteArray m_type;
    QLabel* m_summary;
    QLabel* m_flag;
    QLabel* m_ttl;
    QTableWidget* m_table;
    QTimer* m_ticker;
    qint64 m_expiresAt = 0; // steady-clock ms; 0 = no TTL
    int m_generation = 0;
};

} // namespace tollgate::ui
