#include "tests/support/TlsCertificates.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace tollgate::test {

namespace {

// Our own config so the result does not depend on the distribution's openssl.cnf defaults.
const char kConfig[] = R"([req]
distinguished_name = req_dn
prompt = no

[req_dn]
CN = placeholder

[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[client_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
)";

const int kOpensslTimeoutMs = 30000;

QStringList newEcKeyArguments()
{
    return {QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
            QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
}

} // namespace

TlsCertificates::TlsCertificates() = default;

QString TlsCertificates::opensslPath()
{
    QString found = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    if (found.isEmpty() && QFileInfo(QStringLiteral("/usr/bin/openssl")).isExecutable())
        found = QStringLiteral("/usr/bin/openssl");
    return found;
}

bool TlsCertificates::generate()
{
    m_error.clear();
    if (!m_dir.isValid()) {
        m_error = QStringLiteral("cannot create a temporary directory: ") + m_dir.errorString();
        return false;
    }
    m_openssl = opensslPath();
    if (m_openssl.isEmpty()) {
        m_error = QStringLiteral("openssl not found: run scripts/setup.sh");
        return false;
    }
    m_config = path(QStringLiteral("openssl.cnf"));
    if (!writeConfig(m_config))
        return false;

    const QString server = QStringLiteral("server_ext");
    const QString client = QStringLiteral("client_ext");
    return makeCa(QStringLiteral("ca"), QStringLiteral("/O=Tollgate tests/CN=Tollgate Test CA"),
                  &m_files.caCert, &m_files.caKey) &&
           makeSigned(QStringLiteral("server"), QStringLiteral("/O=Tollgate tests/CN=localhost"),
                      server, &m_files.serverCert, &m_files.serverKey) &&
           makeSigned(QStringLiteral("client"),
                      QStringLiteral("/O=Tollgate tests/CN=tollgate-test-client"), client,
                      &m_files.clientCert, &m_files.clientKey) &&
           makeCa(QStringLiteral("other-ca"),
                  QStringLiteral("/O=Somebody else/CN=Unrelated Test CA"), &m_files.otherCaCert,
                  &m_files.otherCaKey);
}

bool TlsCertificates::writeConfig(const QString& fileName)
{
    QFile file(fileName);
    if (!file.open(QIODevice::WriteOnly) || file.write(kConfig) < 0) {
        m_error =
            QStringLiteral("cannot write ") + fileName + QStringLiteral(": ") + file.errorString();
        return false;
    }
    return true;
}

bool TlsCertificates::makeCa(const QString& name, const QString& subject, QString* cert,
                             QString* key)
{
    *cert = path(name + QStringLiteral(".crt"));
    *key = path(name + QStringLiteral(".key"));
    QStringList arguments{QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-new")};
    arguments << newEcKeyArguments();
    arguments << QStringLiteral("-keyout") << *key << QStringLiteral("-out") << *cert
              << QStringLiteral("-days") << QStringLiteral("3650") << QStringLiteral("-subj")
              << subject << QStringLiteral("-config") << m_config << QStringLiteral("-extensions")
              << QStringLiteral("ca_ext");
    return openssl(arguments);
}

bool TlsCertificates::makeSigned(const QString& name, const QString& subject,
                                 const QString& extensions, QString* cert, QString* key)
{
    *cert = path(name + QStringLiteral(".crt"));
    *key = path(name + QStringLiteral(".key"));
    const QString request = path(name + QStringLiteral(".csr"));

    QStringList csr{QStringLiteral("req"), QStringLiteral("-new")};
    csr << newEcKeyArguments();
    csr << QStringLiteral("-keyout") << *key << QStringLiteral("-out") << request
        << QStringLiteral("-subj") << subject << QStringLiteral("-config") << m_config;
    if (!openssl(csr))
        return false;

    QStringList sign{QStringLiteral("x509"), QStringLiteral("-req")};
    sign << QStringLiteral("-in") << request << QStringLiteral("-CA") << m_files.caCert
         << QStringLiteral("-CAkey") << m_files.caKey << QStringLiteral("-set_serial")
         << QString::number(++m_serial) << QStringLiteral("-days") << QStringLiteral("3650")
         << QStringLiteral("-sha256") << QStringLiteral("-out") << *cert
         << QStringLiteral("-extfile") << m_config << QStringLiteral("-extensions") << extensions;
    return openssl(sign);
}

bool TlsCertificates::openssl(const QStringList& arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.setWorkingDirectory(m_dir.path());
    // The system openssl.cnf may carry provider settings we do not want; use ours for every call.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("OPENSSL_CONF"), m_config);
    process.setProcessEnvironment(environment);
    process.start(m_openssl, arguments);
    const bool finished = process.waitForFinished(kOpensslTimeoutMs);
    if (finished && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0)
        return true;
    if (!finished) {
        process.kill();
        process.waitForFinished(1000);
    }
    const QString reason =
        finished ? QStringLiteral("exit code %1").arg(process.exitCode()) : process.errorString();
    m_error = QStringLiteral("openssl ") + arguments.join(QLatin1Char(' ')) +
              QStringLiteral(" failed (") + reason + QStringLiteral("):\n") +
              QString::fromLocal8Bit(process.readAll());
    return false;
}

QString TlsCertificates::path(const QString& fileName) const
{
    return m_dir.filePath(fileName);
}

} // namespace tollgate::test
