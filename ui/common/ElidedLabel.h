#pragma once

#include <QLabel>

namespace tollgate::ui {

/// A one-line status label that never widens its window: it shows as much of its text as
/// fits, elided at the end, and the whole text as a tooltip while it is cut. text() stays the
/// whole text. For status lines whose length grows with the data (counts at a million rows,
/// lists of names, long ids), which a plain QLabel turns into the window's minimum width.
class ElidedLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    /// A few characters wide: the layout may give it less than the whole text.
    QSize minimumSizeHint() const override;
    /// True when the text does not fit in the width the label has now.
    bool isElided() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
};

} // namespace tollgate::ui
