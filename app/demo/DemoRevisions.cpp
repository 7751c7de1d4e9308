#include "app/demo/DemoRevisions.h"

namespace tollgate {

namespace {

struct Revision
{
    Policy policy;
    QString actor;
    QString reason;
};

void saveFrom(const PolicyStore& store, std::vector<Revision> revisions, size_t index,
              qint64 revision, Context context, Callback<qint64> done)
{
    Revision& next = revisions[index];
    next.policy.revision = revision;
    const Revision saved = next;
    store.save(saved.policy, saved.actor, saved.reason, context,
               [store, revisions = std::move(revisions), index, context,
                done = std::move(done)](Result<qint64> stored) mutable {
                   if (!stored || index + 1 == revisions.size())
                       return done(std::move(stored));
                   saveFrom(store, std::move(revisions), index + 1, stored.value(), context,
                            std::move(done));
               });
}

} // namespace

void saveWithDemoRevisions(const PolicyStore& store, const Policy& current, const QString& actor,
                           Context context, Callback<qint64> done)
{
    Policy first = current;
    first.windows = {{20, 10'000}};
    first.banMs = 0;
    Policy strict = current;
    strict.windows = {{5, 10'000}};
    strict.warn = 3;
    std::vector<Revision> revisions = {
        {first, QStringLiteral("ops-paul"), QStringLiteral("a first limit on likes")},
        {strict, QStringLiteral("ops-olga"), QStringLiteral("like farms got through at 20")},
        {current, actor, QStringLiteral("too strict: support tickets from real users")},
    };
    saveFrom(store, std::move(revisions), 0, 0, context, std::move(done));
}

} // namespace tollgate
