#pragma once

#include <QList>
#include <QPen>
#include <QVector>

class QChart;
class QLineSeries;
class QValueAxis;

namespace tollgate::ui {

/// One line of a RateChart whose values may hold NaN for buckets Redis did not count (it was
/// not responding): QtCharts ignores NaN points and would join the line across, so each run of
/// known values gets a series of its own and the missing buckets stay a gap. The first piece
/// carries the name and the legend entry; the others hide theirs.
class GappedLine
{
public:
    GappedLine(QChart* chart, QValueAxis* x, QValueAxis* y, const QString& name);
    ~GappedLine(); // takes its series off the chart
    GappedLine(const GappedLine&) = delete;
    GappedLine& operator=(const GappedLine&) = delete;

    /// The first piece: the legend entry, and the whole line when nothing is missing.
    QLineSeries* series() const { return m_pieces.first(); }
    int pieceCount() const { return int(m_pieces.size()); }

    /// Point i at x = (i - last) / pointsPerUnit.
    void setValues(const QVector<double>& values, int pointsPerUnit);
    void setPen(const QPen& pen);
    void setVisible(bool visible);

    /// The highest value the y axis should fit: the points just after a gap are left out, as
    /// they hold what Redis caught up with once it ran again, not a rate anyone sent.
    static double scaleTop(const QVector<double>& values);

private:
    QLineSeries* addPiece();
    void hideExtraMarkers();

    QChart* m_chart;
    QValueAxis* m_x;
    QValueAxis* m_y;
    QList<QLineSeries*> m_pieces;
    QPen m_pen;
    bool m_visible = true;
};

} // namespace tollgate::ui
