#include "ui/dashboard/RateChart.h"

#include "ui/common/DisplayText.h"

#include "ui/dashboard/DashboardModels.h"

#include <QColor>
#include <QCursor>
#include <QFontMetrics>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QToolTip>
#include <QValueAxis>
#include <cmath>
#include <map>
#include <vector>

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

// QtCharts' default theme repeats its five colours. Both charts read the same model, so the
// row index gives an action the same look in each. Mid-saturation colours read on white and
// on a dark base alike; the dash pattern separates lines of similar hue that overlap.
QPen seriesPen(int row)
{
    static const QList<QColor> palette = {
        QColor(0x1f77b4), QColor(0xff7f0e), QColor(0x2ca02c), QColor(0xd62728), QColor(0x9467bd),
        QColor(0x8c564b), QColor(0xe377c2), QColor(0x7f7f7f), QColor(0xbcbd22), QColor(0x17becf)};
    static const Qt::PenStyle dashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                          Qt::DashDotLine};
    QPen pen(palette.at(row % int(palette.size())));
    pen.setWidthF(2.0);
    pen.setStyle(dashes[row % 4]);
    return pen;
}

} // namespace

RateChart::RateChart(const QString& what, ActionStatsModel* model, Rate rate, QWidget* parent)
    : QChartView(parent), m_model(model), m_rate(rate), m_what(what), m_x(new QValueAxis),
      m_y(new QValueAxis)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation); // redrawn every second: no flicker
    // On the right the names stack and keep their full width; at the bottom, seven actions
    // in a narrow chart were cut to "co…".
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->legend()->setToolTip(tr("Click an action to hide or show its line"));
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_y->setRange(0, 5);
    m_y->setTickCount(6);
    m_y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    setChart(chart);
    m_range = ChartRange::Day; // so that setRange() below lays the axes out
    setRange(ChartRange::FiveMinutes);
    // Once laid out the tick count settles (the same count again changes nothing).
    connect(chart, &QChart::plotAreaChanged, this, &RateChart::fitTimeTicks);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(200);
    applyPalette();

    connect(model, &QAbstractItemModel::dataChanged, this, &RateChart::refresh);
    connect(model, &QAbstractItemModel::rowsInserted, this, &RateChart::refresh);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &RateChart::refresh);
    connect(model, &QAbstractItemModel::modelReset, this, &RateChart::refresh);
}

void RateChart::setRange(ChartRange range)
{
    if (range == m_range)
        return;
    m_range = range;
    // The points span -(n-1) .. 0; round labels matter more than the first point.
    switch (range) {
    case ChartRange::FiveMinutes:
        m_x->setRange(-300, 0);
        m_x->setLabelFormat(QStringLiteral("%d s"));
        break;
    case ChartRange::Hour:
        m_x->setRange(-60, 0);
        m_x->setLabelFormat(QStringLiteral("%d min"));
        break;
    case ChartRange::Day:
        m_x->setRange(-24, 0);
        m_x->setLabelFormat(QStringLiteral("%d h"));
        break;
    }
    fitTimeTicks();
    const bool perSecond = shapeOf(range).bucketSeconds == 1;
    m_y->setTitleText(perSecond ? tr("per second") : tr("per minute"));
    updateTitle();
}

void RateChart::fitTimeTicks()
{
    // As many round steps as the labels have room for: a narrow chart (1024 px, legend beside
    // it) would elide "-50 min" to "-5…". Tick counts that give whole seconds, minutes, hours.
    static const std::map<ChartRange, std::vector<int>> counts{
        {ChartRange::FiveMinutes, {6, 4, 3, 2}}, // every 60, 100, 150, 300 s
        {ChartRange::Hour, {7, 5, 4, 3, 2}},     // every 10, 15, 20, 30, 60 min
        {ChartRange::Day, {9, 7, 5, 3, 2}}};     // every 3, 4, 6, 12, 24 h
    const QString widest = QString::asprintf(qPrintable(m_x->labelFormat()), int(m_x->min()));
    const int label = QFontMetrics(m_x->labelsFont()).horizontalAdvance(widest) + 16;
    const qreal plot =
        chart()->plotArea().width() > 0 ? chart()->plotArea().width() : qreal(width()) * 0.6;
    int fitting = 2;
    for (int count : counts.at(m_range))
        if (plot / (count - 1) >= label) {
            fitting = count;
            break;
        }
    if (m_x->tickCount() != fitting)
        m_x->setTickCount(fitting);
}

void RateChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void RateChart::applyPalette()
{
    // The chart paints itself, not through the style: hand it the palette so a dark desktop
    // does not get a white rectangle with black text.
    const QPalette p = palette();
    QChart* c = chart();
    c->setBackgroundBrush(p.base());
    c->setBackgroundPen(Qt::NoPen);
    c->setTitleBrush(p.text());
    c->legend()->setLabelColor(p.color(QPalette::Text));
    for (QValueAxis* axis : {m_x, m_y}) {
        axis->setLabelsBrush(p.text());
        axis->setTitleBrush(p.text());
        QColor grid = p.color(QPalette::Text);
        grid.setAlpha(40);
        axis->setGridLineColor(grid);
        axis->setLinePenColor(p.color(QPalette::Mid));
    }
    for (auto it = m_series.cbegin(); it != m_series.cend(); ++it)
        if (QLegendMarker* m = marker(it.key()))
            showMarker(m, !m_hidden.contains(it.key()));
}

QLegendMarker* RateChart::marker(const QByteArray& action) const
{
    QLineSeries* line = m_series.value(action);
    if (!line)
        return nullptr;
    const auto markers = chart()->legend()->markers(line);
    return markers.isEmpty() ? nullptr : markers.first();
}

void RateChart::showMarker(QLegendMarker* marker, bool visible)
{
    // A hidden series keeps its legend entry, greyed, so it can be switched back on.
    marker->setVisible(true);
    QColor label = palette().color(QPalette::Text);
    if (!visible)
        label = palette().color(QPalette::Disabled, QPalette::Text);
    marker->setLabelBrush(label);
    QFont font = marker->font();
    font.setStrikeOut(!visible);
    marker->setFont(font);
}

void RateChart::setActionVisible(const QByteArray& action, bool visible)
{
    if (visible)
        m_hidden.remove(action);
    else
        m_hidden.insert(action);
    if (QLineSeries* line = m_series.value(action)) {
        line->setVisible(visible);
        if (QLegendMarker* m = marker(action))
            showMarker(m, visible);
    }
}

void RateChart::connectMarker(const QByteArray& action, QLineSeries* line)
{
    if (QLegendMarker* m = marker(action))
        connect(m, &QLegendMarker::clicked, this, [this, action] {
            const bool visible = m_hidden.contains(action);
            setActionVisible(action, visible);
            Q_EMIT actionVisibilityChanged(action, visible);
        });
    connect(line, &QLineSeries::hovered, this, [this, action](const QPointF& point, bool state) {
        if (!state) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(QCursor::pos(), valueText(action, point.x()), this);
    });
}

QString RateChart::valueText(const QByteArray& action, double x) const
{
    const QLineSeries* line = m_series.value(action);
    if (!line || line->count() == 0)
        return QString();
    // The nearest point: hovering lands between them.
    const qsizetype last = line->count() - 1;
    const qsizetype index = qBound<qsizetype>(0, last + qRound(x * pointsPerUnit()), last);
    const QPointF point = line->at(index);
    const int ago = qRound(-point.x() * pointsPerUnit()); // in seconds or minutes
    const QString value = QLocale().toString(point.y(), 'g', 4);
    if (m_range == ChartRange::FiveMinutes)
        return tr("%1: %2 /s, %3")
            .arg(displayId(action), value, ago == 0 ? tr("now") : tr("%1 s ago").arg(ago));
    return tr("%1: %2 /min, %3")
        .arg(displayId(action), value,
             ago == 0 ? tr("the last minute") : tr("%1 min ago").arg(ago));
}

void RateChart::updateTitle()
{
    const bool perSecond = shapeOf(m_range).bucketSeconds == 1;
    const QString what = m_shadowSeries.isEmpty() ? m_what : tr("%1 (dotted: would deny)").arg(m_what);
    chart()->setTitle(perSecond ? tr("%1 per second").arg(what) : tr("%1 per minute").arg(what));
}

void RateChart::setShadowRate(Rate rate)
{
    m_shadowRate = rate;
    refresh();
}

QLineSeries* RateChart::drawLine(QHash<QByteArray, QLineSeries*>& from, const ActionStats& stats,
                                 const QString& name, const QVector<double>& values,
                                 bool visible, double* top, bool* created)
{
    QLineSeries* line = from.take(stats.action);
    *created = !line;
    if (*created) {
        line = new QLineSeries;
        line->setName(name);
        chart()->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_y);
    }
    QList<QPointF> points;
    points.reserve(values.size());
    const qsizetype offset = values.size() - 1;
    for (qsizetype i = 0; i < values.size(); ++i) {
        points.append(QPointF(double(i - offset) / pointsPerUnit(), values[i]));
        if (visible)
            *top = std::max(*top, values[i]);
    }
    line->replace(points); // one call: one repaint
    line->setVisible(visible);
    return line;
}

void RateChart::refresh()
{
    QHash<QByteArray, QLineSeries*> kept, keptShadow;
    double top = 0;
    int row = 0;
    for (const ActionStats& stats : m_model->rows()) {
        const bool visible = !m_hidden.contains(stats.action);
        const QPen pen = seriesPen(row++);
        bool created = false;
        if (m_shadowRate && stats.shadow) {
            QLineSeries* would = drawLine(m_shadowSeries, stats,
                                          tr("%1 (would deny)").arg(displayId(stats.action)),
                                          stats.*m_shadowRate, visible, &top, &created);
            QPen dotted(pen.color(), 1.5, Qt::DotLine);
            would->setPen(dotted);
            keptShadow.insert(stats.action, would);
        }
        QLineSeries* line = drawLine(m_series, stats, displayId(stats.action), stats.*m_rate,
                                     visible, &top, &created);
        line->setPen(pen);
        kept.insert(stats.action, line);
        if (created) {
            m_series.insert(stats.action, line); // marker() looks it up there
            connectMarker(stats.action, line);
            if (QLegendMarker* m = marker(stats.action))
                showMarker(m, visible);
            m_series.remove(stats.action);
        }
    }
    for (const auto* gone : {&m_series, &m_shadowSeries})
        for (QLineSeries* line : *gone) {
            chart()->removeSeries(line);
            delete line;
        }
    m_series = kept;
    const bool titleChanges = m_shadowSeries.isEmpty() != keptShadow.isEmpty();
    m_shadowSeries = keptShadow;
    if (titleChanges)
        updateTitle();
    const auto [yTop, ticks] = niceRange(top * 1.1);
    m_y->setRange(0, yTop);
    m_y->setTickCount(ticks);
}

} // namespace tollgate::ui
