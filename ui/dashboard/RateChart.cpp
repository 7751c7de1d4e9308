#include "ui/dashboard/RateChart.h"

#include "ui/common/DisplayText.h"

#include "ui/dashboard/DashboardModels.h"
#include "ui/dashboard/GappedLine.h"

#include <QColor>
#include <QCursor>
#include <QFontMetrics>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QMouseEvent>
#include <QStringList>
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
// on a dark base alike. Always solid: a dotted line means "would deny" in the title, and the
// legend's swatches show colour only.
QPen seriesPen(int row)
{
    static const QList<QColor> palette = {
        QColor(0x1f77b4), QColor(0xff7f0e), QColor(0x2ca02c), QColor(0xd62728), QColor(0x9467bd),
        QColor(0x8c564b), QColor(0xe377c2), QColor(0x7f7f7f), QColor(0xbcbd22), QColor(0x17becf)};
    QPen pen(palette.at(row % int(palette.size())));
    pen.setWidthF(2.0);
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
    viewport()->setMouseTracking(true); // hover shows values without a button held
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
    refresh(); // the other range's points leave at once (a stalled Redis may not send new ones)
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

void RateChart::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event);
    fitLegend();
}

void RateChart::fitLegend()
{
    // The legend stacks its entries on the right and cuts off what does not fit (the last
    // actions, at 1024x700): a smaller font, down to a readable minimum, before that happens.
    QLegend* legend = chart()->legend();
    int entries = 0;
    for (const auto& [action, line] : m_lines)
        entries += marker(action) ? 1 : 0;
    const qreal title =
        chart()->title().isEmpty() ? 0 : QFontMetricsF(chart()->titleFont()).height() * 1.5;
    const qreal room = qreal(height()) - title - 24; // the chart's and the legend's margins
    QFont font = this->font();
    const qreal normal = font.pointSizeF() > 0 ? font.pointSizeF() : 9;
    for (qreal size = normal; size >= 6; size -= 0.5) {
        font.setPointSizeF(size);
        // An entry: a line of text and the spacing QLegend puts between entries.
        if (entries * (QFontMetricsF(font).height() + 6) <= room)
            break;
    }
    if (legend->font() == font)
        return;
    legend->setFont(font);
    for (const auto& [action, line] : m_lines) // markers take the legend's font: strike again
        if (QLegendMarker* m = marker(action))
            showMarker(m, !m_hidden.contains(action));
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
    for (const auto& [action, line] : m_lines)
        if (QLegendMarker* m = marker(action))
            showMarker(m, !m_hidden.contains(action));
}

RateChart::~RateChart() = default;

QLineSeries* RateChart::series(const QByteArray& action) const
{
    const auto it = m_lines.find(action);
    return it == m_lines.end() ? nullptr : it->second->series();
}

int RateChart::pieceCount(const QByteArray& action) const
{
    const auto it = m_lines.find(action);
    return it == m_lines.end() ? 0 : it->second->pieceCount();
}

QLineSeries* RateChart::shadowSeries(const QByteArray& action) const
{
    const auto it = m_shadowLines.find(action);
    return it == m_shadowLines.end() ? nullptr : it->second->series();
}

QLegendMarker* RateChart::marker(const QByteArray& action) const
{
    return markerOf(series(action));
}

QLegendMarker* RateChart::markerOf(QLineSeries* line) const
{
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
    const auto it = m_lines.find(action);
    if (it == m_lines.end())
        return;
    it->second->setVisible(visible);
    const auto shadow = m_shadowLines.find(action);
    if (shadow != m_shadowLines.end())
        shadow->second->setVisible(visible);
    if (QLegendMarker* m = marker(action))
        showMarker(m, visible);
}

void RateChart::connectMarker(const QByteArray& action, QLineSeries* line)
{
    if (QLegendMarker* m = markerOf(line))
        connect(m, &QLegendMarker::clicked, this, [this, action] {
            const bool visible = m_hidden.contains(action);
            setActionVisible(action, visible);
            Q_EMIT actionVisibilityChanged(action, visible);
        });
}

const ActionStats* RateChart::rowOf(const QByteArray& action) const
{
    for (const ActionStats& stats : m_model->rows())
        if (stats.action == action)
            return &stats;
    return nullptr;
}

qsizetype RateChart::indexAt(qsizetype count, double x) const
{
    const qsizetype index = count - 1 + qRound(x * pointsPerUnit());
    return index >= 0 && index < count ? index : -1;
}

QString RateChart::valueText(const QByteArray& action, double x) const
{
    const ActionStats* stats = rowOf(action);
    if (!stats || (stats->*m_rate).isEmpty())
        return QString();
    // The nearest point: hovering lands between them.
    const QVector<double>& values = stats->*m_rate;
    const qsizetype index =
        qBound<qsizetype>(0, values.size() - 1 + qRound(x * pointsPerUnit()), values.size() - 1);
    const int ago = int(values.size() - 1 - index); // in seconds or minutes
    const QString value = std::isnan(values[index]) ? tr("no count (Redis not responding)")
                                                    : QLocale().toString(values[index], 'g', 4);
    const bool perSecond = m_range == ChartRange::FiveMinutes;
    const QString unit = std::isnan(values[index]) ? QString()
                         : perSecond               ? QStringLiteral(" /s")
                                                   : QStringLiteral(" /min");
    const QString when = perSecond ? (ago == 0 ? tr("now") : tr("%1 s ago").arg(ago))
                                   : (ago == 0 ? tr("the last minute") : tr("%1 min ago").arg(ago));
    return tr("%1: %2%3, %4").arg(displayId(action), value, unit, when);
}

QString RateChart::hoverText(double x) const
{
    QStringList lines;
    for (const ActionStats& stats : m_model->rows()) {
        if (m_hidden.contains(stats.action) || indexAt((stats.*m_rate).size(), x) < 0 ||
            (stats.*m_rate).size() != shapeOf(m_range).points)
            continue;
        lines << valueText(stats.action, x);
        if (m_shadowRate && stats.shadow && indexAt((stats.*m_shadowRate).size(), x) >= 0) {
            const double would = (stats.*m_shadowRate)[indexAt((stats.*m_shadowRate).size(), x)];
            if (!std::isnan(would))
                lines << tr("%1 (would deny): %2")
                             .arg(displayId(stats.action), QLocale().toString(would, 'g', 4));
        }
    }
    return lines.join(QLatin1Char('\n'));
}

void RateChart::mouseMoveEvent(QMouseEvent* event)
{
    QChartView::mouseMoveEvent(event);
    const QPointF scene = mapToScene(event->position().toPoint());
    const QPointF at = chart()->mapFromScene(scene);
    if (!chart()->plotArea().contains(at)) {
        QToolTip::hideText();
        return;
    }
    const QString text = hoverText(chart()->mapToValue(at).x());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void RateChart::updateTitle()
{
    const bool perSecond = shapeOf(m_range).bucketSeconds == 1;
    const QString what = m_shadowLines.empty() ? m_what : tr("%1 (dotted: would deny)").arg(m_what);
    chart()->setTitle(perSecond ? tr("%1 per second").arg(what) : tr("%1 per minute").arg(what));
}

void RateChart::setShadowRate(Rate rate)
{
    m_shadowRate = rate;
    refresh();
}

GappedLine* RateChart::drawLine(Lines& from, Lines& to, const ActionStats& stats,
                                const QString& name, const QVector<double>& values, bool visible,
                                double* top, bool* created)
{
    auto node = from.extract(stats.action);
    *created = node.empty();
    std::unique_ptr<GappedLine> line =
        *created ? std::make_unique<GappedLine>(chart(), m_x, m_y, name) : std::move(node.mapped());
    // Points of another range (sampled before a switch) would be spread over the wrong axis.
    const bool ofThisRange = values.size() == shapeOf(m_range).points;
    line->setValues(ofThisRange ? values : QVector<double>(), pointsPerUnit());
    line->setVisible(visible);
    if (visible && ofThisRange)
        *top = std::max(*top, GappedLine::scaleTop(values));
    GappedLine* raw = line.get();
    to.emplace(stats.action, std::move(line));
    return raw;
}

void RateChart::refresh()
{
    Lines kept, keptShadow;
    double top = 0;
    int row = 0;
    bool added = false;
    for (const ActionStats& stats : m_model->rows()) {
        const bool visible = !m_hidden.contains(stats.action);
        const QPen pen = seriesPen(row++);
        bool created = false;
        if (m_shadowRate && stats.shadow) {
            GappedLine* would = drawLine(m_shadowLines, keptShadow, stats,
                                         tr("%1 (would deny)").arg(displayId(stats.action)),
                                         stats.*m_shadowRate, visible, &top, &created);
            would->setPen(QPen(pen.color(), 1.5, Qt::DotLine));
        }
        GappedLine* line = drawLine(m_lines, kept, stats, displayId(stats.action), stats.*m_rate,
                                    visible, &top, &created);
        line->setPen(pen);
        if (created) {
            added = true;
            connectMarker(stats.action, line->series());
            if (QLegendMarker* m = markerOf(line->series()))
                showMarker(m, visible);
        }
    }
    // What is left in m_lines and m_shadowLines belongs to actions gone: freed here.
    const bool entriesChanged = added || !m_lines.empty();
    m_lines = std::move(kept);
    const bool titleChanges = m_shadowLines.empty() != keptShadow.empty();
    m_shadowLines = std::move(keptShadow);
    if (titleChanges)
        updateTitle();
    if (entriesChanged)
        fitLegend();
    const auto [yTop, ticks] = niceRange(top * 1.1);
    m_y->setRange(0, yTop);
    m_y->setTickCount(ticks);
}

} // namespace tollgate::ui
