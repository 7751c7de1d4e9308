#include "ui/policies/PoliciesModel.h"

#include "core/policies/Duration.h"

#include <QDateTime>

namespace tollgate::ui {

PoliciesModel::PoliciesModel(QObject* parent) : QAbstractTableModel(parent) {}

void PoliciesModel::setPolicies(std::vector<Policy> policies)
{
    const bool sameRows =
        policies.size() == m_policies.size() &&
        std::equal(policies.begin(), policies.end(), m_policies.begin(),
                   [](const Policy& a, const Policy& b) { return a.action == b.action; });
    if (!sameRows) {
        beginResetModel();
        m_policies = std::move(policies);
        endResetModel();
        return;
    }
    m_policies = std::move(policies);
    if (!m_policies.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

const Policy* PoliciesModel::policyAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &m_policies[size_t(row)];
}

int PoliciesModel::rowOf(const QByteArray& action) const
{
    for (size_t i = 0; i < m_policies.size(); ++i)
        if (m_policies[i].action == action)
            return int(i);
    return -1;
}

int PoliciesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_policies.size());
}

int PoliciesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PoliciesModel::data(const QModelIndex& index, int role) const
{
    const Policy* policy = index.isValid() ? policyAt(index.row()) : nullptr;
    if (!policy)
        return {};
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case WarnColumn:
        case CostColumn:
        case RevisionColumn:
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == UpdatedByColumn && policy->updatedMs > 0)
        return tr("%1 at %2")
            .arg(policy->updatedBy,
                 QDateTime::fromMSecsSinceEpoch(policy->updatedMs).toString(Qt::ISODate));
    if (role == Qt::ToolTipRole && index.column() == LimitsColumn) // elided when narrow
        return policy->windowsText();
    if (role == Qt::ToolTipRole && index.column() == ActionColumn && !policy->message.isEmpty())
        return tr("Deny message: %1").arg(policy->message);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case ActionColumn:
        return policy->shadow ? tr("%1 (shadow)").arg(QString::fromUtf8(policy->action))
                              : QString::fromUtf8(policy->action);
    case AlgorithmColumn:
        return QString::fromLatin1(algorithmName(policy->algorithm));
    case LimitsColumn:
        return policy->windowsText();
    case BanColumn:
        return policy->hasBan() ? policy->banText() : tr("none");
    case WarnColumn:
        return policy->warn > 0 ? QVariant(policy->warn) : QVariant(tr("-"));
    case CostColumn:
        return policy->cost;
    case CountDeniedColumn:
        return policy->countDenied ? tr("yes") : tr("no");
    case RevisionColumn:
        return policy->revision;
    case UpdatedByColumn:
        return policy->updatedBy;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant PoliciesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case ActionColumn:
        return tr("Action");
    case AlgorithmColumn:
        return tr("Algorithm");
    case LimitsColumn:
        return tr("Limits");
    case BanColumn:
        return tr("Ban");
    case WarnColumn:
        return tr("Warn");
    case CostColumn:
        return tr("Cost");
    case CountDeniedColumn:
        return tr("Count denied");
    case RevisionColumn:
        return tr("Revision");
    case UpdatedByColumn:
        return tr("Updated by");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tollgate::ui
