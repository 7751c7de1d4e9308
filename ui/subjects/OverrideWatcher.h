#pragma once

#include "ui/common/Session.h"
#include "ui/subjects/OverrideMarks.h"

#include <QObject>
#include <QTimer>

namespace tollgate::ui {

/// Keeps the Subjects page's OverrideMarks current: reads the override index (OverrideStore::
/// list: the index, then each overridden user's hash, one pipeline) on a timer while active
/// and soon after an override event, builds the marks on a worker and hands them over whole.
/// Never a read per subject: a million rows cost what the overrides cost.
class OverrideWatcher : public QObject
{
    Q_OBJECT
public:
    static constexpr int kPollMs = 10'000;

    explicit OverrideWatcher(Session* session, QObject* parent = nullptr);

    /// Polls while on (the page is shown); turning it on reads at once.
    void setActive(bool on);
    /// Reads now (one read at a time: a request during one runs after it).
    void refresh();
    const SharedOverrideMarks& marks() const { return m_marks; }

Q_SIGNALS:
    void marksChanged(const tollgate::ui::SharedOverrideMarks& marks);
    void failed(const tollgate::Error& error);

private:
    void built(SharedOverrideMarks marks);

    Session* m_session;
    SharedOverrideMarks m_marks = std::make_shared<const OverrideMarks>();
    QTimer m_poll;
    QTimer m_soon; // coalesces a burst of override events into one read
    bool m_reading = false;
    bool m_again = false;
};

} // namespace tollgate::ui
