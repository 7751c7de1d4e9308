#pragma once

#include "ui/dashboard/DashboardData.h"

#include <QChartView>
#include <QSet>
#include <map>
#include <memory>

class QLegendMarker;
class QLineSeries;
class QValueAxis;

namespace tollgate::ui {

class ActionStatsModel;
class GappedLine;

/// A line chart of one rate of every action over the chosen range (per second over 5 minutes,
/// per minute over an hour or a day), one series per action, drawn from the rows of an
/// ActionStatsModel (the data the table shows). Clicking a
/// legend entry hides or shows its series; hovering the plot shows every action's value at that
/// time. Colours follow the widget palette (light or dark); lines differ by colour and are
/// solid, so the only dotted ones are what the title says (a shadow policy's would-be denials).
/// Buckets Redis did not count (NaN: it was not responding) are gaps, and the backlog counted
/// right after one does not grow the y axis (GappedLine).
class RateChart : public QChartView
{
    Q_OBJECT
public:
    using Rate = const QVector<double> ActionStats::*;

    /// `what` names the rate ("Hits"); the title adds "per second" or "per minute".
    RateChart(const QString& what, ActionStatsModel* model, Rate rate, QWidget* parent = nullptr);
    ~RateChart() override;

    /// The span and unit of the x axis; the series follow with the model's next rows.
    void setRange(ChartRange range);
    ChartRange range() const { return m_range; }
    QValueAxis* timeAxis() const { return m_x; }

    /// Draws `rate` too, for actions with a shadow policy, as a thin dotted line of the
    /// action's colour named "<action> (would deny)" (the denials chart's would-be denials).
    void setShadowRate(Rate rate);

    /// The series of one action, for tests; nullptr when the action has none.
    /// Its first piece: the whole line unless Redis missed seconds (pieceCount()).
    QLineSeries* series(const QByteArray& action) const;
    int pieceCount(const QByteArray& action) const;
    /// The shadow line of one action (setShadowRate); nullptr when none.
    QLineSeries* shadowSeries(const QByteArray& action) const;
    int seriesCount() const { return int(m_lines.size()); }
    QValueAxis* valueAxis() const { return m_y; }
    /// The legend entry of one action's series; nullptr when none.
    QLegendMarker* marker(const QByteArray& action) const;
    /// Hides or shows one action's series (what a legend click does); kept across refreshes.
    void setActionVisible(const QByteArray& action, bool visible);
    /// What hovering `action`'s line at `x` (the axis' unit: s, min or h) shows
    /// ("like: 4 /s, 12 s ago", "like: 240 /min, 5 min ago").
    QString valueText(const QByteArray& action, double x) const;
    /// The tooltip for the plot at `x`: the time, then each shown action's value there.
    QString hoverText(double x) const;

Q_SIGNALS:
    /// The user switched an action's line off or on (a legend click), so a chart without
    /// a legend of its own can follow.
    void actionVisibilityChanged(const QByteArray& action, bool visible);

protected:
    void changeEvent(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    void updateTitle();
    using Lines = std::map<QByteArray, std::unique_ptr<GappedLine>>;
    // Moves the action's line from `from` to `to` (or makes one) and fills it; the y axis' top
    // grows to fit it.
    GappedLine* drawLine(Lines& from, Lines& to, const ActionStats& stats, const QString& name,
                         const QVector<double>& values, bool visible, double* top, bool* created);
    const ActionStats* rowOf(const QByteArray& action) const;
    // The bucket under x (the axis' unit), counted from the newest; -1 outside the points.
    qsizetype indexAt(qsizetype count, double x) const;
    void fitTimeTicks();
    void fitLegend(); // every entry within the chart's height, the font smaller if need be
    void applyPalette();
    void connectMarker(const QByteArray& action, QLineSeries* line);
    QLegendMarker* markerOf(QLineSeries* line) const;
    void showMarker(QLegendMarker* marker, bool visible);

    // Points per unit of the x axis: 1 (seconds, minutes) or 60 (minutes on an axis of hours).
    int pointsPerUnit() const { return m_range == ChartRange::Day ? 60 : 1; }

    ActionStatsModel* m_model;
    Rate m_rate;
    Rate m_shadowRate = nullptr;
    QString m_what;
    ChartRange m_range = ChartRange::FiveMinutes;
    QValueAxis* m_x;
    QValueAxis* m_y;
    Lines m_lines;
    Lines m_shadowLines;
    QSet<QByteArray> m_hidden; // actions the user switched off in the legend
};

} // namespace tollgate::ui
