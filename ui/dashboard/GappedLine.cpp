#include "ui/dashboard/GappedLine.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace tollgate::ui {

namespace {
// How many buckets after a gap hold the backlog: the second Redis ran again and the next one.
constexpr int kCatchUpPoints = 2;
} // namespace

GappedLine::GappedLine(QChart* chart, QValueAxis* x, QValueAxis* y, const QString& name)
    : m_chart(chart), m_x(x), m_y(y)
{
    addPiece()->setName(name);
}

GappedLine::~GappedLine()
{
    for (QLineSeries* piece : std::as_const(m_pieces)) {
        m_chart->removeSeries(piece);
        delete piece;
    }
}

QLineSeries* GappedLine::addPiece()
{
    auto* piece = new QLineSeries;
    m_chart->addSeries(piece);
    piece->attachAxis(m_x);
    piece->attachAxis(m_y);
    piece->setPen(m_pen);
    piece->setVisible(m_visible);
    if (!m_pieces.isEmpty())
        piece->setName(m_pieces.first()->name());
    m_pieces << piece;
    hideExtraMarkers();
    return piece;
}

void GappedLine::hideExtraMarkers()
{
    // One legend entry per line; QLegend shows a marker again whenever its series turns visible.
    for (qsizetype i = 1; i < m_pieces.size(); ++i)
        for (QLegendMarker* marker : m_chart->legend()->markers(m_pieces[i]))
            marker->setVisible(false);
}

void GappedLine::setValues(const QVector<double>& values, int pointsPerUnit)
{
    QList<QList<QPointF>> runs(1); // one run so far, empty
    const qsizetype last = values.size() - 1;
    for (qsizetype i = 0; i < values.size(); ++i) {
        if (std::isnan(values[i])) {
            if (!runs.last().isEmpty())
                runs << QList<QPointF>();
            continue;
        }
        runs.last().append(QPointF(double(i - last) / pointsPerUnit, values[i]));
    }
    if (runs.size() > 1 && runs.last().isEmpty())
        runs.removeLast();
    while (m_pieces.size() > runs.size()) {
        QLineSeries* piece = m_pieces.takeLast();
        m_chart->removeSeries(piece);
        delete piece;
    }
    while (m_pieces.size() < runs.size())
        addPiece();
    for (qsizetype i = 0; i < runs.size(); ++i)
        m_pieces[i]->replace(runs[i]); // one call per piece: one repaint
}

void GappedLine::setPen(const QPen& pen)
{
    m_pen = pen;
    for (QLineSeries* piece : std::as_const(m_pieces))
        piece->setPen(pen);
}

void GappedLine::setVisible(bool visible)
{
    m_visible = visible;
    for (QLineSeries* piece : std::as_const(m_pieces))
        piece->setVisible(visible);
    hideExtraMarkers();
}

double GappedLine::scaleTop(const QVector<double>& values)
{
    double top = 0;
    int afterGap = 0; // points left to skip
    for (double value : values) {
        if (std::isnan(value)) {
            afterGap = kCatchUpPoints;
            continue;
        }
        if (afterGap > 0) {
            --afterGap;
            continue;
        }
        top = std::max(top, value);
    }
    return top;
}

} // namespace tollgate::ui
