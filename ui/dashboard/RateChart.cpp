#include "ui/dashboard/RateChart.h"

#include "ui/common/DisplayText.h"

#include "ui/dashboard/DashboardModels.h"

#include <QColor>
#include <QLineSeries>
#include <QValueAxis>
#include <cmath>

namespace tollgate::ui {

namespace {

// 5, 10, 20, 50, 100 ...: a round top for the y axis so it does not jitter every second, with
// a tick count that keeps every label a whole number.
std::pair<double, int> niceRange(double value)
{
    if (value <= 5)
        return {5, 6};
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    if (magnitude * 1 >= value)
        return {magnitude, 6};
    if (magnitude * 2 >= value)
        return {2 * magnitude, 5};
    if (magnitude * 5 >= value)
        return {5 * magnitude, 6};
    return {10 * magnitude, 6};
}

} // namespace

RateChart::RateChart(const QString& title, ActionStatsModel* model, Rate rate, QWidget* parent)
    : QChartView(parent), m_model(model), m_rate(rate), m_x(new QValueAxis), m_y(new QValueAxis)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->setAnimationOptions(QChart::NoAnimation); // redrawn every second: no flicker
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_x->setRange(-kDashboardSeconds, 0); // the points span -59 .. 0; round labels matter more
    m_x->setTickCount(7);
    m_x->setLabelFormat(QStringLiteral("%d s"));
    m_y->setRange(0, 5);
    m_y->setTickCount(6);
    m_y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);

    connect(model, &QAbstractItemModel::dataChanged, this, &RateChart::refresh);
    connect(model, &QAbstractItemModel::rowsInserted, this, &RateChart::refresh);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &RateChart::refresh);
    connect(model, &QAbstractItemModel::modelReset, this, &RateChart::refresh);
}

namespace {

// QtCharts' default theme repeats its five colours. Both charts read the same model, so the
// row index gives an action the same colour in each.
QColor seriesColor(int row)
{
    static const QList<QColor> palette = {
        QColor(0x1f77b4), QColor(0xff7f0e), QColor(0x2ca02c), QColor(0xd62728), QColor(0x9467bd),
        QColor(0x8c564b), QColor(0xe377c2), QColor(0x7f7f7f), QColor(0xbcbd22), QColor(0x17becf)};
    return palette.at(row % int(palette.size()));
}

} // namespace

void RateChart::refresh()
{
    QHash<QByteArray, QLineSeries*> kept;
    double top = 0;
    int row = 0;
    for (const ActionStats& stats : m_model->rows()) {
        QLineSeries* line = m_series.take(stats.action);
        if (!line) {
            line = new QLineSeries;
            line->setName(displayId(stats.action));
            chart()->addSeries(line);
            line->attachAxis(m_x);
            line->attachAxis(m_y);
        }
        const QVector<double>& values = stats.*m_rate;
        QList<QPointF> points;
        points.reserve(values.size());
        const qsizetype offset = values.size() - 1;
        for (qsizetype i = 0; i < values.size(); ++i) {
            points.append(QPointF(double(i - offset), values[i]));
            top = std::max(top, values[i]);
        }
        line->setColor(seriesColor(row++));
        line->replace(points); // one call: one repaint
        kept.insert(stats.action, line);
    }
    for (QLineSeries* gone : std::as_const(m_series)) {
        chart()->removeSeries(gone);
        delete gone;
    }
    m_series = kept;
    const auto [yTop, ticks] = niceRange(top * 1.1);
    m_y->setRange(0, yTop);
    m_y->setTickCount(ticks);
}

} // namespace tollgate::ui
