#include "service/decide/DynamicMetadata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace tollgate::service {

namespace {

// `from`'s members into `into`: a key already there stays, unless both are maps (merged).
void merge(QJsonObject& into, const QJsonObject& from)
{
    for (auto it = from.begin(); it != from.end(); ++it) {
        const auto existing = into.find(it.key());
        if (existing == into.end()) {
            into.insert(it.key(), it.value());
        } else if (existing->isObject() && it->isObject()) {
            QJsonObject both = existing->toObject();
            merge(both, it->toObject());
            *existing = both;
        }
    }
}

QString text(const QByteArray& bytes)
{
    return QString::fromUtf8(bytes);
}

} // namespace

QByteArray dynamicMetadata(const DecisionRequest& request,
                           const std::vector<DescriptorDecision>& statuses)
{
    QJsonObject root{{QStringLiteral("domain"), text(request.domain)}};
    QJsonArray descriptors;
    for (const RequestDescriptor& descriptor : request.descriptors) {
        QJsonArray entries;
        for (const RequestEntry& entry : descriptor.entries)
            entries.append(text(entry.key + '=' + entry.value));
        QJsonObject each{{QStringLiteral("entries"), entries}};
        if (descriptor.limit)
            each.insert(QStringLiteral("limit"),
                        QStringLiteral("requests_per_unit:%1 unit:%2")
                            .arg(descriptor.limit->requestsPerUnit)
                            .arg(unitName(descriptor.limit->unit).toUpper()));
        if (descriptor.hitsAddend)
            each.insert(QStringLiteral("hitsAddend"), double(*descriptor.hitsAddend));
        descriptors.append(each);
    }
    root.insert(QStringLiteral("descriptors"), descriptors);
    if (request.hitsAddend != 0)
        root.insert(QStringLiteral("hitsAddend"), double(request.hitsAddend));
    QJsonObject passed;
    for (const DescriptorDecision& status : statuses) {
        if (status.code == Code::Ok && !status.metadata.isEmpty())
            merge(passed, QJsonDocument::fromJson(status.metadata).object());
    }
    if (!passed.isEmpty())
        root.insert(QStringLiteral("metadata"), passed);
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

} // namespace tollgate::service
