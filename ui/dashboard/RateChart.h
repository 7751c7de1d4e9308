#pragma once

#include <QChartView>
#include <QHash>

class QLineSeries;
class QValueAxis;

namespace tollgate::ui {

class ActionStatsModel;
struct ActionStats;

/// A line chart of one per-second rate of every action over the last minute, one series per
/// action, drawn from the rows of an ActionStatsModel (the data the table shows).
class RateChart : public QChartView
{
    Q_OBJECT
public:
    using Rate = const QVector<double> ActionStats::*;

    RateChart(const QString& title, ActionStatsModel* model, Rate rate, QWidget* parent = nullptr);

    /// The series of one action, for tests; nullptr when the action has none.
    QLineSeries* series(const QByteArray& action) const { return m_series.value(action); }
    int seriesCount() const { return int(m_series.size()); }

private:
    void refresh();

    ActionStatsModel* m_model;
    Rate m_rate;
    QValueAxis* m_x;
    QValueAxis* m_y;
    QHash<QByteArray, QLineSeries*> m_series;
};

} // namespace tollgate::ui
