#include "ui/connection/SshAskPass.h"

#include <QApplication>
#include <QInputDialog>
#include <QLineEdit>
#include <cstdio>

namespace tollgate::ui {

bool isSshAskPass()
{
    return qEnvironmentVariableIsSet("TOLLGATE_SSH_ASKPASS");
}

std::optional<QString> askSshSecret(const QString& prompt)
{
    QInputDialog dialog;
    dialog.setObjectName(QStringLiteral("sshAskPassDialog"));
    dialog.setWindowTitle(QApplication::translate("SshAskPass", "Tollgate \u2014 SSH tunnel"));
    dialog.setLabelText(prompt.isEmpty() ? QApplication::translate("SshAskPass", "SSH password:")
                                         : prompt);
    // A host key question is answered in the clear; secrets are not echoed.
    const bool question = prompt.contains(QStringLiteral("(yes/no"));
    dialog.setTextEchoMode(question ? QLineEdit::Normal : QLineEdit::Password);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.textValue();
}

int runSshAskPass(int argc, char* argv[])
{
    QApplication app(argc, argv);
    const std::optional<QString> answer =
        askSshSecret(argc > 1 ? QString::fromLocal8Bit(argv[1]).trimmed() : QString());
    if (!answer)
        return 1;
    std::fputs(answer->toUtf8().constData(), stdout);
    std::fputc('\n', stdout);
    return 0;
}

} // namespace tollgate::ui
