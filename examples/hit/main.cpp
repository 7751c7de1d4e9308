// An application rate-limiting with Tollgate's library: 3 likes per 10 seconds per user,
// counted atomically in Redis. Usage: tollgate-example-hit [redis-url] [user]
// (The umbrella header, so that building it compiles every header of the API; a program may
// include only the headers of the classes it uses: <tollgate/Limiter.h>.)
#include <tollgate/tollgate.h>

#include <QCoreApplication>
#include <cstdio>

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto options = tollgate::ConnectionOptions::fromUrl(
        args.value(1, QStringLiteral("redis://127.0.0.1:6379")));
    if (!options) {
        std::fprintf(stderr, "bad url: %s\n", qPrintable(options.error().message));
        return 2;
    }
    tollgate::Client client(*options);
    client.open();

    tollgate::Policy policy;
    policy.action = "like";
    policy.windows = {{3, 10'000}}; // limit, window in ms
    const tollgate::Limiter limiter(&client, tollgate::KeySchema("tg"));
    const QByteArray user = args.value(2, QStringLiteral("alice")).toUtf8();

    const auto result = tollgate::waitFor<tollgate::HitResult>(
        [&](auto done) { limiter.hit(policy, user, 0, nullptr, std::move(done)); });
    if (!result) {
        std::fprintf(stderr, "%s\n", qPrintable(result.error().toString()));
        return 3;
    }
    std::printf("%s: %lld of %lld left\n", result->allowed ? "allowed" : "denied",
                static_cast<long long>(result->remaining), static_cast<long long>(result->limit));
    return result->allowed ? 0 : 1;
}
