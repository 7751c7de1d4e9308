#include "ui/keys/KeyDetails.h"

#include "tollgate/PolicyStore.h"
#include "ui/common/Session.h"
#include "ui/keys/KeyPreview.h"

#include <QHash>
#include <QSet>
#include <memory>

namespace tollgate::ui {

void fetchKeyDetails(Session* session, const QList<QByteArray>& keys, QObject* context,
                     std::function<void(const QList<KeysModel::Row>&)> done)
{
    struct Fetch
    {
        QList<KeysModel::Row> rows;
        QList<ValueContext> contexts;
        QList<std::vector<std::optional<Reply>>> previews; // one per preview command
        QHash<QByteArray, Policy> policies; // by action
        qint64 serverNowUs = 0;
        int pending = 0;
        std::function<void(const QList<KeysModel::Row>&)> done;
    };
    auto fetch = std::make_shared<Fetch>();
    fetch->done = std::move(done);
    Client* client = session->client();
    auto finishOne = [fetch] {
        if (--fetch->pending > 0)
            return;
        for (int i = 0; i < fetch->rows.size(); ++i) {
            std::vector<Reply> replies;
            for (std::optional<Reply>& reply : fetch->previews[i])
                if (reply)
                    replies.push_back(std::move(*reply));
            if (replies.empty() || replies.size() < fetch->previews[i].size())
                continue; // nothing to read, or a read failed (its error is the preview)
            ValueContext& read = fetch->contexts[i];
            read.serverNowUs = fetch->serverNowUs;
            if (const auto policy = fetch->policies.constFind(read.place.action);
                policy != fetch->policies.cend())
                read.limit = limitAt(*policy, read.place);
            const KeyPreview preview = previewOf(fetch->rows[i].type, replies, read);
            fetch->rows[i].preview = preview.text;
            fetch->rows[i].raw = preview.raw;
        }
        fetch->done(fetch->rows);
    };
    QSet<QByteArray> actions; // of the state keys, whose limits the summaries need
    for (const QByteArray& key : keys) {
        fetch->rows.append(KeysModel::Row{key, {}, -2, {}, true, 0, {}, {}});
        fetch->contexts.append(ValueContext{session->schema().parse(key), 0, {}, -1});
        fetch->previews.append(std::vector<std::optional<Reply>>());
        if (fetch->contexts.last().place.kind == KeySchema::Parsed::Kind::State)
            actions.insert(fetch->contexts.last().place.action);
    }
    fetch->pending = int(keys.size()) * 2;
    if (!actions.isEmpty()) {
        fetch->pending += int(actions.size()) + 1;
        client->execute({QByteArrayLiteral("TIME")}, context,
                        [fetch, finishOne](Result<Reply> time) {
                            fetch->serverNowUs = time ? serverTimeUs(*time) : 0;
                            finishOne();
                        });
        for (const QByteArray& action : actions)
            session->policies().get(action, context,
                                    [fetch, action, finishOne](Result<Policy> policy) {
                                        if (policy)
                                            fetch->policies.insert(action, *policy);
                                        finishOne();
                                    });
    }
    for (int i = 0; i < keys.size(); ++i) {
        client->execute(
            {QByteArrayLiteral("TYPE"), keys[i]}, context,
            [fetch, i, client, context, finishOne](Result<Reply> type) {
                KeysModel::Row& row = fetch->rows[i];
                row.type = type ? type->toBytes() : QByteArrayLiteral("?");
                // TIME went out first on this connection: its reply is in by now.
                const std::vector<Command> preview = previewCommands(
                    row.type, row.key, fetch->contexts[i].place, fetch->serverNowUs);
                fetch->previews[i].resize(preview.size());
                for (size_t k = 0; k < preview.size(); ++k) {
                    ++fetch->pending;
                    client->execute(preview[k], context,
                                    [fetch, i, k, finishOne](Result<Reply> value) {
                                        if (value)
                                            fetch->previews[i][k] = *value;
                                        else
                                            fetch->rows[i].preview = value.error().message;
                                        finishOne();
                                    });
                }
                finishOne();
            });
        client->execute({QByteArrayLiteral("PTTL"), keys[i]}, context,
                        [fetch, i, finishOne](Result<Reply> pttl) {
                            fetch->rows[i].pttl = pttl ? pttl->toInteger().value_or(-2) : -2;
                            finishOne();
                        });
    }
}

} // namespace tollgate::ui
