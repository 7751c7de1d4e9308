#include "ui/connection/ProfileStore.h"

#include "core/sentinel/SentinelUrl.h"
#include "ui/connection/SentinelBox.h"

#include <QPointer>

#ifdef TOLLGATE_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>
#endif

namespace tollgate::ui {

namespace {

const QString kService = QStringLiteral("tollgate");

} // namespace

ProfileStore::ProfileStore(std::unique_ptr<QSettings> settings, QObject* parent)
    : QObject(parent), m_settings(std::move(settings))
{
    if (!m_settings)
        m_settings = std::make_unique<QSettings>(QStringLiteral("Tollgate"),
                                                 QStringLiteral("tollgate"));
#ifndef TOLLGATE_HAVE_KEYCHAIN
    m_keychainAvailable = false;
    m_keychainProblem = tr("This build has no keychain support");
#endif
}

ProfileStore::~ProfileStore() = default;

QString ProfileStore::group(const QString& name)
{
    // QSettings treats '/' as a separator: keep any profile name as one group.
    return QStringLiteral("profiles/") + QString::fromLatin1(name.toUtf8().toPercentEncoding());
}

QStringList ProfileStore::names() const
{
    m_settings->beginGroup(QStringLiteral("profiles"));
    const QStringList groups = m_settings->childGroups();
    m_settings->endGroup();
    QStringList names;
    for (const QString& g : groups)
        names << QString::fromUtf8(QByteArray::fromPercentEncoding(g.toLatin1()));
    names.sort(Qt::CaseInsensitive);
    return names;
}

std::optional<ConnectionProfile> ProfileStore::load(const QString& name) const
{
    if (!names().contains(name))
        return std::nullopt;
    QSettings& s = *m_settings;
    s.beginGroup(group(name));
    ConnectionProfile p;
    p.name = name;
    ConnectionOptions& c = p.connection;
    c.transport = s.value(QStringLiteral("transport")).toString() == QLatin1String("unix")
                      ? ConnectionOptions::Transport::Unix
                      : ConnectionOptions::Transport::Tcp;
    c.host = s.value(QStringLiteral("host"), c.host).toString();
    c.port = quint16(s.value(QStringLiteral("port"), c.port).toUInt());
    c.socketPath = s.value(QStringLiteral("socket")).toString();
    c.user = s.value(QStringLiteral("user")).toString();
    c.database = s.value(QStringLiteral("database"), 0).toInt();
    c.tls.enabled = s.value(QStringLiteral("tls"), false).toBool();
    c.tls.caFile = s.value(QStringLiteral("tlsCa")).toString();
    c.tls.certFile = s.value(QStringLiteral("tlsCert")).toString();
    c.tls.keyFile = s.value(QStringLiteral("tlsKey")).toString();
    c.tls.serverName = s.value(QStringLiteral("tlsServerName")).toString();
    c.tls.verifyPeer = s.value(QStringLiteral("tlsVerify"), true).toBool();
    if (auto sentinels = parseSentinelList(s.value(QStringLiteral("sentinels")).toString())) {
        c.sentinel.sentinels = std::move(*sentinels);
        c.sentinel.masterName = s.value(QStringLiteral("sentinelMaster")).toString();
        c.sentinel.user = s.value(QStringLiteral("sentinelUser")).toString();
        c.sentinel.replica = s.value(QStringLiteral("sentinelReplica"), false).toBool();
    }
    p.prefix = s.value(QStringLiteral("prefix"), QStringLiteral("tg")).toString().toUtf8();
    p.readOnly = s.value(QStringLiteral("readOnly"), false).toBool();
    p.actor = s.value(QStringLiteral("actor")).toString();
    s.endGroup();
    return p;
}

void ProfileStore::save(const ConnectionProfile& profile)
{
    QSettings& s = *m_settings;
    s.remove(group(profile.name));
    s.beginGroup(group(profile.name));
    const ConnectionOptions& c = profile.connection;
    s.setValue(QStringLiteral("transport"), c.transport == ConnectionOptions::Transport::Unix
                                                ? QStringLiteral("unix")
                                                : QStringLiteral("tcp"));
    s.setValue(QStringLiteral("host"), c.host);
    s.setValue(QStringLiteral("port"), c.port);
    s.setValue(QStringLiteral("socket"), c.socketPath);
    s.setValue(QStringLiteral("user"), c.user);
    s.setValue(QStringLiteral("database"), c.database);
    s.setValue(QStringLiteral("tls"), c.tls.enabled);
    s.setValue(QStringLiteral("tlsCa"), c.tls.caFile);
    s.setValue(QStringLiteral("tlsCert"), c.tls.certFile);
    s.setValue(QStringLiteral("tlsKey"), c.tls.keyFile);
    s.setValue(QStringLiteral("tlsServerName"), c.tls.serverName);
    s.setValue(QStringLiteral("tlsVerify"), c.tls.verifyPeer);
    if (c.sentinel.enabled()) { // the sentinels' password too goes to the keychain only
        s.setValue(QStringLiteral("sentinels"), sentinelListText(c.sentinel.sentinels));
        s.setValue(QStringLiteral("sentinelMaster"), c.sentinel.masterName);
        s.setValue(QStringLiteral("sentinelUser"), c.sentinel.user);
        s.setValue(QStringLiteral("sentinelReplica"), c.sentinel.replica);
    }
    s.setValue(QStringLiteral("prefix"), QString::fromUtf8(profile.prefix));
    s.setValue(QStringLiteral("readOnly"), profile.readOnly);
    s.setValue(QStringLiteral("actor"), profile.actor);
    // Deliberately no "password" key: see writePassword().
    s.endGroup();
    s.sync();
}

void ProfileStore::remove(const QString& name)
{
    m_settings->remove(group(name));
    m_settings->sync();
    deletePassword(name);
    deletePassword(SentinelBox::keychainName(name));
}

QString ProfileStore::lastUsed() const
{
    return m_settings->value(QStringLiteral("lastProfile")).toString();
}

void ProfileStore::setLastUsed(const QString& name)
{
    m_settings->setValue(QStringLiteral("lastProfile"), name);
    m_settings->sync();
}

void ProfileStore::keychainFailed(const QString& why)
{
    m_keychainProblem = why;
    if (m_keychainAvailable) {
        m_keychainAvailable = false;
        Q_EMIT keychainAvailabilityChanged(false);
    }
}

#ifdef TOLLGATE_HAVE_KEYCHAIN

namespace {

// Runs one keychain job; `finished` gets the job before it deletes itself.
template <typename Job, typename Finished>
void runJob(Job* job, QObject* receiver, Finished finished)
{
    job->setAutoDelete(true);
    QObject::connect(job, &QKeychain::Job::finished, receiver,
                     [finished](QKeychain::Job* done) { finished(done); });
    job->start();
}

} // namespace

void ProfileStore::readPassword(const QString& profile, QObject* context, PasswordCallback done)
{
    if (!m_keychainAvailable) {
        done({false, {}, m_keychainProblem});
        return;
    }
    auto* job = new QKeychain::ReadPasswordJob(kService);
    job->setKey(profile);
    const QPointer<QObject> guard(context);
    runJob(job, this, [this, guard, done](QKeychain::Job* finished) {
        PasswordResult result;
        switch (finished->error()) {
        case QKeychain::NoError:
            result.found = true;
            result.password = static_cast<QKeychain::ReadPasswordJob*>(finished)->textData();
            break;
        case QKeychain::EntryNotFound:
            break;
        case QKeychain::NoBackendAvailable:
        case QKeychain::NotImplemented:
        case QKeychain::OtherError:
            keychainFailed(finished->errorString());
            result.error = finished->errorString();
            break;
        default:
            result.error = finished->errorString();
        }
        if (guard)
            done(result);
    });
}

void ProfileStore::writePassword(const QString& profile, const QString& password,
                                 QObject* context, PasswordCallback done)
{
    if (!m_keychainAvailable) {
        if (done)
            done({false, {}, m_keychainProblem});
        return;
    }
    auto* job = new QKeychain::WritePasswordJob(kService);
    job->setKey(profile);
    job->setTextData(password);
    const QPointer<QObject> guard(context);
    runJob(job, this, [this, guard, done](QKeychain::Job* finished) {
        PasswordResult result;
        result.found = finished->error() == QKeychain::NoError;
        if (!result.found) {
            result.error = finished->errorString();
            if (finished->error() != QKeychain::AccessDeniedByUser)
                keychainFailed(finished->errorString());
        }
        if (guard && done)
            done(result);
    });
}

void ProfileStore::deletePassword(const QString& profile)
{
    if (!m_keychainAvailable)
        return;
    auto* job = new QKeychain::DeletePasswordJob(kService);
    job->setKey(profile);
    runJob(job, this, [](QKeychain::Job*) {});
}

#else

void ProfileStore::readPassword(const QString&, QObject*, PasswordCallback done)
{
    done({false, {}, m_keychainProblem});
}

void ProfileStore::writePassword(const QString&, const QString&, QObject*,
                                 PasswordCallback done)
{
    if (done)
        done({false, {}, m_keychainProblem});
}

void ProfileStore::deletePassword(const QString&) {}

#endif

} // namespace tollgate::ui
