#pragma once

#include <QString>
#include <QTemporaryDir>

namespace tollgate::test {

// Paths of the PEM files made by TlsCertificates::generate(). Every key is unencrypted.
struct TlsFiles
{
    QString caCert; // the test CA; it signed serverCert and clientCert
    QString caKey;
    QString serverCert; // CN=localhost, subjectAltName IP:127.0.0.1, DNS:localhost
    QString serverKey;
    QString clientCert; // CN=tollgate-test-client, extendedKeyUsage clientAuth
    QString clientKey;
    QString otherCaCert; // an unrelated CA, for "wrong CA" tests: it signed nothing
    QString otherCaKey;
};

// Generates a throw-away PKI with the openssl command-line tool in its own temporary directory,
// removed with the object. EC P-256 keys keep generation well under a second.
class TlsCertificates
{
public:
    TlsCertificates();
    TlsCertificates(const TlsCertificates&) = delete;
    TlsCertificates& operator=(const TlsCertificates&) = delete;

    // Runs openssl; on failure errorString() holds the failing command and its output.
    bool generate();

    const TlsFiles& files() const { return m_files; }
    QString dir() const { return m_dir.path(); }
    QString errorString() const { return m_error; }

    // openssl on PATH or in /usr/bin; empty when not installed.
    static QString opensslPath();

private:
    bool writeConfig(const QString& path);
    bool makeCa(const QString& name, const QString& subject, QString* cert, QString* key);
    bool makeSigned(const QString& name, const QString& subject, const QString& extensions,
                    QString* cert, QString* key);
    bool openssl(const QStringList& arguments);
    QString path(const QString& fileName) const;

    QTemporaryDir m_dir;
    QString m_openssl;
    QString m_config;
    TlsFiles m_files;
    QString m_error;
    int m_serial = 1;
};

} // namespace tollgate::test
