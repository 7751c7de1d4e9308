#include "core/limiter/PreparedHit.h"

#include "core/policies/ZoneOffsets.h"
#include "core/scripts/ScriptLibrary.h"
#include "tollgate/Overrides.h"

namespace tollgate {

namespace {

// Two ids whose escaping is themselves: the key functions' outputs for them differ exactly
// where the escaped user goes, which gives that key's constant head and tail without
// restating the key schema here.
const QByteArray kProbeA = QByteArrayLiteral("a");
const QByteArray kProbeB = QByteArrayLiteral("b");

template <typename KeyOf> Result<std::pair<QByteArray, QByteArray>> splitAroundUser(KeyOf keyOf)
{
    const QByteArray a = keyOf(kProbeA), b = keyOf(kProbeB);
    qsizetype head = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head])
        ++head;
    const qsizetype tail = a.size() - head - kProbeA.size();
    if (a.size() != b.size() || tail < 0 ||
        a.mid(head + kProbeA.size()) != b.mid(head + kProbeB.size()) ||
        a.mid(head, kProbeA.size()) != kProbeA)
        return Error{ErrorKind::InvalidInput, QStringLiteral("key schema has no single user part")};
    return std::make_pair(a.left(head), a.mid(head + kProbeA.size()));
}

// hit.lua's short form leaves out what only an automatic ban, a warn level, a denied hit that
// counts or local time needs (audit streams, ids, channel, rules, offsets): a policy that needs
// none of them sends 11 fewer keys and arguments, which the server pays for on every hit.
bool takesShortForm(const Policy& policy)
{
    return !policy.countDenied && policy.warn == 0 && policy.banMs == 0 &&
           !policy.banUntilMidnight && !policy.calendarAligned;
}

} // namespace

Result<std::shared_ptr<const PreparedHit>> PreparedHit::prepare(const Policy& policy,
                                                                const KeyLayout& layout)
{
    return build(policy, layout, false);
}

Result<std::shared_ptr<const PreparedHit>> PreparedHit::build(const Policy& policy,
                                                              const KeyLayout& layout,
                                                              bool forOverride)
{
    const KeySchema& schema = layout.schema();
    if (Status valid = policy.validate(); !valid)
        return valid.error();
    const ScriptInfo* script = ScriptLibrary::instance().find(QStringLiteral("hit"));
    if (!script)
        return Error{ErrorKind::NotFound, QStringLiteral("no script named hit")};

    auto prepared = std::make_shared<PreparedHit>();
    PreparedHit& p = *prepared;
    p.m_policy = policy;
    p.m_schema = schema;
    p.m_cluster = layout.isCluster();
    const auto userKey = [](const auto& keyOf, UserKey* out) -> Status {
        auto split = splitAroundUser(keyOf);
        if (!split)
            return split.error();
        *out = {split->first, split->second};
        return Unit{};
    };
    const QByteArray& action = policy.action;
    Status split = userKey([&](const QByteArray& u) { return schema.userBanKey(u); }, &p.m_userBan);
    if (split)
        split = userKey([&](const QByteArray& u) { return schema.actionBanKey(u, action); },
                        &p.m_actionBan);
    if (split)
        split =
            userKey([&](const QByteArray& u) { return schema.overridesKey(u); }, &p.m_overrides);
    if (split)
        split =
            userKey([&](const QByteArray& u) { return schema.userAuditKey(u); }, &p.m_userAudit);
    for (const WindowLimit& w : policy.windows) {
        UserKey key;
        if (split)
            split = userKey(
                [&](const QByteArray& u) {
                    return schema.stateKey(u, action, policy.algorithm, w.windowMs);
                },
                &key);
        p.m_stateKeys.push_back(std::move(key));
    }
    if (!split)
        return split.error();

    p.m_short = takesShortForm(policy);
    p.m_forOverride = forOverride;
    const qsizetype keys = p.keyCount();
    const qsizetype fixedArguments = p.m_short ? 3 : 12;
    p.m_argumentCount = 3 + keys + fixedArguments + 2 * qsizetype(policy.windows.size()) +
                        (forOverride ? 1 : 0);
    for (auto [head, evalsha] : {std::pair{&p.m_hitHead, QByteArrayLiteral("EVALSHA")},
                                 std::pair{&p.m_peekHead, QByteArrayLiteral("EVALSHA_RO")}}) {
        head->add(evalsha);
        head->add(script->sha1);
        head->addNumber(keys);
    }
    // KEYS[5]: hit.lua writes an automatic ban's global audit entry itself, atomically. On a
    // cluster it is the user's audit stream again, added per hit (hit.lua: no mirror).
    if (!p.m_cluster)
        p.m_globalAudit.add(layout.auditMirror({})); // standalone: <p>:audit, whatever the call
    // A shadow policy's hits are decided and counted but never denied (hit.lua mode "shadow").
    p.m_hitMode.add(policy.shadow ? "shadow" : "hit");
    p.m_peekMode.add("peek");
    for (RespFragment* mode : {&p.m_hitMode, &p.m_peekMode})
        mode->add(algorithmName(policy.algorithm));
    p.m_policyCost.addNumber(policy.cost);
    if (!p.m_short) {
        p.m_rules.add(policy.countDenied ? "1" : "0");
        p.m_rules.addNumber(policy.warn);
        p.m_rules.addNumber(policy.banMs);
        p.m_rules.add(policy.banUntilMidnight ? QByteArrayView("midnight") : QByteArrayView());
        // "0": no local time needed, which keeps the common hit short.
        p.m_noOffsets.add("0");
        p.m_tail.add(action);
        p.m_tail.add(schema.eventsChannel());
        p.m_tail.add(policy.calendarAligned ? "calendar" : "first_hit");
    }
    for (const WindowLimit& w : policy.windows) {
        p.m_tail.addNumber(w.limit);
        p.m_tail.addNumber(w.windowMs);
    }
    if (forOverride)
        p.m_tail.add("override");
    p.m_constantBytes = p.m_peekHead.bytes().size() + p.m_globalAudit.bytes().size() +
                        p.m_peekMode.bytes().size() + p.m_policyCost.bytes().size() +
                        p.m_rules.bytes().size() + p.m_tail.bytes().size() + 64;
    for (const UserKey* key : {&p.m_userBan, &p.m_actionBan, &p.m_overrides, &p.m_userAudit})
        p.m_constantBytes += key->head.size() + key->tail.size() + 16;
    for (const UserKey& key : p.m_stateKeys)
        p.m_constantBytes += key.head.size() + key.tail.size() + 16;
    return std::shared_ptr<const PreparedHit>(std::move(prepared));
}

Result<std::shared_ptr<const PreparedHit>>
PreparedHit::prepareForOverride(const Policy& policy, const std::vector<WindowLimit>& windows,
                                const KeyLayout& layout)
{
    return build(withOverrideWindows(policy, windows), layout, true);
}

bool PreparedHit::preparedFrom(const Policy& o, bool cluster) const
{
    const Policy& p = m_policy;
    return !m_forOverride && m_cluster == cluster && p.revision == o.revision && p.action == o.action &&
           p.algorithm == o.algorithm && p.windows == o.windows && p.cost == o.cost &&
           p.warn == o.warn && p.banMs == o.banMs && p.banUntilMidnight == o.banUntilMidnight &&
           p.calendarAligned == o.calendarAligned && p.timeZone == o.timeZone &&
           p.countDenied == o.countDenied && p.message == o.message && p.onError == o.onError &&
           p.shadow == o.shadow;
}

Result<EncodedCommand> PreparedHit::command(bool peek, const QByteArray& user, qint64 cost) const
{
    if (Status valid = KeySchema::validateId(user, QStringLiteral("user id")); !valid)
        return valid.error();
    if (cost < 0 || cost > Policy::kMaxLimit)
        return Error{ErrorKind::InvalidInput,
                     QStringLiteral("cost must be between 1 and %1").arg(Policy::kMaxLimit)};
    QByteArray offsets;
    if (m_policy.needsLocalTime()) {
        Result<QByteArray> around = zoneOffsetsAroundNow(m_policy.timeZone);
        if (!around)
            return around.error();
        offsets = std::move(*around);
    }

    const QByteArray escaped = KeySchema::escape(user); // once for all the user's keys
    const qsizetype userKeys = keyCount() - (m_cluster || m_short ? 0 : 1);
    CommandBuilder builder(m_argumentCount, m_constantBytes + userKeys * escaped.size() +
                                                user.size() + offsets.size());
    const auto addKey = [&](const UserKey& key) {
        builder.addParts({key.head, escaped, key.tail});
    };
    builder.add(peek ? m_peekHead : m_hitHead);
    addKey(m_userBan);
    addKey(m_actionBan);
    addKey(m_overrides);
    if (!m_short) {
        addKey(m_userAudit);
        if (m_cluster)
            addKey(m_userAudit);
        else
            builder.add(m_globalAudit);
    }
    for (const UserKey& key : m_stateKeys)
        addKey(key);
    builder.add(peek ? m_peekMode : m_hitMode);
    if (cost > 0)
        builder.addNumber(cost);
    else
        builder.add(m_policyCost);
    if (m_short) {
        builder.add(m_tail); // the limit/window pairs
        return std::move(builder).finish();
    }
    builder.add(m_rules);
    if (m_policy.needsLocalTime())
        builder.add(offsets);
    else
        builder.add(m_noOffsets);
    builder.add(user);
    builder.add(m_tail);
    return std::move(builder).finish();
}

} // namespace tollgate
