// Whether a Twemproxy pool keeps keys of one hash tag together (hash_tag "{}"), asked through
// the proxy itself without writing anything: which backend answers for two keys of one tag.
#include "tollgate/Client.h"

#include <QDebug>

namespace tollgate {

namespace {

// The backend's run_id, from INFO inside a script: the proxy forwards EVAL with a key to the
// backend of that key, and INFO is allowed in scripts. A fixed text, not built at run time.
const QByteArray kWhoAnswers =
    QByteArrayLiteral("return redis.call('INFO','server'):match('run_id:(%w+)')");
constexpr int kPairs = 8; // with two backends, a pool without the tag escapes 1 in 256

} // namespace

void Client::probeHashTag()
{
    std::vector<Command> probes;
    for (int i = 0; i < kPairs; ++i)
        for (const char* suffix : {":a", ":b"})
            probes.push_back({QByteArrayLiteral("EVAL"), kWhoAnswers, QByteArrayLiteral("1"),
                              QByteArrayLiteral("tollgate:{probe") + QByteArray::number(i) +
                                  QByteArrayLiteral("}") + suffix});
    executeBatch(std::move(probes), nullptr, [this](std::vector<Result<Reply>> replies) {
        for (size_t i = 0; i + 1 < replies.size(); i += 2) {
            if (!replies[i] || !replies[i + 1])
                return; // unreachable for now: nothing can be said
            if (replies[i]->toBytes() != replies[i + 1]->toBytes()) {
                const QString warning =
                    QStringLiteral("the Twemproxy pool at ") + m_options.endpoint() +
                    QStringLiteral(" spreads keys of one hash tag over several backends: "
                                   "configure it with hash_tag: \"{}\", or Tollgate's scripts "
                                   "will write keys the proxy does not read back");
                {
                    QMutexLocker lock(&m_errorMutex);
                    m_twemproxyWarning = warning;
                }
                qWarning().noquote() << warning;
                return;
            }
        }
    });
}

QString Client::twemproxyWarning() const
{
    QMutexLocker lock(&m_errorMutex);
    return m_twemproxyWarning;
}

} // namespace tollgate
