#include "app/gui/ConsoleOptions.h"

#include "tollgate/Version.h"

#include <QCoreApplication>
#include <cstring>

namespace tollgate::console {

ConsoleOptions::ConsoleOptions()
    : demo(QStringLiteral("demo"),
           QStringLiteral("Start a private redis-server with example policies and simulated "
                          "traffic.")),
      cluster(QStringLiteral("cluster"),
              QStringLiteral("With --demo: a private Redis Cluster (three primaries, a replica "
                             "each) instead of one server.")),
      twemproxy(QStringLiteral("twemproxy"),
                QStringLiteral("With --demo: two redis-servers behind a private Twemproxy "
                               "(nutcracker) that now and then ejects one and takes it "
                               "back.")),
      subjects(QStringLiteral("subjects"),
               QStringLiteral("With --demo: first seed N more subjects (1..10000000) into the "
                              "private server: counters on upload and search, 1 % banned, "
                              "overrides and exemptions, e.g. 1000000 to try the console at "
                              "production size."),
               QStringLiteral("N")),
      url(QStringLiteral("url"), QStringLiteral("Connect to URL."), QStringLiteral("URL")),
      profile(QStringLiteral("profile"), QStringLiteral("Connect with the saved profile NAME."),
              QStringLiteral("NAME")),
      readOnly(QStringLiteral("read-only"), QStringLiteral("Disable every write.")),
      prefix(QStringLiteral("prefix"), QStringLiteral("Key prefix (default tg)."),
             QStringLiteral("P")),
      screenshots(QStringLiteral("screenshots"),
                  QStringLiteral("Save a picture of every page to DIR after ~8 s, then quit."),
                  QStringLiteral("DIR")),
      palette(QStringLiteral("palette"),
              QStringLiteral("\"dark\", \"light\" (Fusion with that palette) or \"system\" "
                             "(the desktop's), over the one chosen in View > Palette (also "
                             "TOLLGATE_PALETTE)."),
              QStringLiteral("NAME")),
      ssh(QStringLiteral("ssh"),
          QStringLiteral("With --url: reach Redis through this SSH server ([user@]host[:port] or "
                         "a ~/.ssh/config host)."),
          QStringLiteral("DEST")),
      sshConfig(QStringLiteral("ssh-config"),
                QStringLiteral("With --ssh: this ssh config instead of ~/.ssh/config."),
                QStringLiteral("FILE")),
      sshIdentity(QStringLiteral("ssh-identity"),
                  QStringLiteral("With --ssh: offer this private key."), QStringLiteral("FILE")),
      sshAcceptNewHostKey(QStringLiteral("ssh-accept-new-host-key"),
                          QStringLiteral("With --ssh: trust and record a host key not in "
                                         "known_hosts yet."))
{
    parser.setApplicationDescription(QStringLiteral("Tollgate console: rate limits on Redis"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions(
        {demo, cluster, twemproxy, subjects, url, profile, readOnly, prefix, screenshots, palette});
    parser.addOptions({ssh, sshConfig, sshIdentity, sshAcceptNewHostKey});
}

void setApplicationIdentity()
{
    QCoreApplication::setApplicationName(QStringLiteral("tollgate"));
    QCoreApplication::setOrganizationName(QStringLiteral("Tollgate"));
    QCoreApplication::setApplicationVersion(QStringLiteral("%1 (script contract %2)")
                                                .arg(QString::fromLatin1(kVersion))
                                                .arg(kScriptContract));
}

std::optional<int> answerWithoutDisplay(int argc, char* argv[])
{
    bool asked = false;
    for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        for (const char* flag : {"-h", "-?", "--help", "--help-all", "-v", "--version"})
            asked = asked || std::strcmp(argv[i], flag) == 0;
    }
    if (!asked)
        return std::nullopt;
    QCoreApplication app(argc, argv);
    setApplicationIdentity();
    ConsoleOptions options;
    options.parser.process(app); // prints the help or the version and exits
    return 0;
}

} // namespace tollgate::console
