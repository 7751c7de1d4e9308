#pragma once

#include "tollgate/Result.h"

#include <QWidget>

class QComboBox;
class QDateTimeEdit;
class QRadioButton;

namespace tollgate::ui {

/// When something a person sets ends: after a duration, at a date, or never.
struct Expiry
{
    qint64 durationMs = 0; // > 0: for this long from now
    qint64 untilMs = 0;    // > 0: at this epoch ms
    bool permanent() const { return durationMs == 0 && untilMs == 0; }
};

/// The end of a ban or an override: "For" a duration (typed or picked: 30s, 10m, 1h30m, 1d,
/// parsed by core parseDuration), "Until" a date, or "Permanently". One place for the rule
/// both dialogs follow: an end in the future, at most `maxMs` away.
class ExpiryChooser : public QWidget
{
    Q_OBJECT
public:
    static constexpr qint64 kMaxMs = 100LL * 365 * 86'400'000; // the scripts' limit

    /// `noun` names the thing in messages ("ban", "override"); `durations` are the presets,
    /// `picked` the one chosen at first.
    ExpiryChooser(const QString& noun, const QStringList& durations, int picked,
                  QWidget* parent = nullptr);

    /// The chosen end, or why it is invalid.
    Result<Expiry> expiry() const;
    void setExpiry(const Expiry& expiry);
    /// "For" with this duration text (a preset or typed).
    void setDuration(const QString& text);

Q_SIGNALS:
    void changed();

private:
    void updateEnabled();

    QString m_noun;
    QRadioButton* m_forDuration;
    QRadioButton* m_untilDate;
    QRadioButton* m_permanent;
    QComboBox* m_duration;
    QDateTimeEdit* m_until;
};

} // namespace tollgate::ui
