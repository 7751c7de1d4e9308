#pragma once

#include "tollgate/Policy.h"

#include <QSpinBox>

namespace tollgate::ui {

/// A spin box for limits, costs and warn levels: minimum..Policy::kMaxLimit, accelerated.
inline QSpinBox* makeCountSpinBox(int minimum, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, int(Policy::kMaxLimit));
    box->setAccelerated(true);
    return box;
}

} // namespace tollgate::ui
