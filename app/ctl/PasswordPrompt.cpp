// --askpass: the password typed at the terminal, never echoed, never on the command line.
#include "app/ctl/Cli.h"

#include <cstdio>
#include <string>
#include <termios.h>
#include <unistd.h>

namespace tollgate::ctl {

QString readPassword(const QString& prompt, bool* ok)
{
    const bool terminal = isatty(STDIN_FILENO) == 1;
    termios saved{};
    if (terminal) {
        // Echo off before the prompt shows: nothing typed after it can appear on screen.
        tcgetattr(STDIN_FILENO, &saved);
        termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        std::fputs(qUtf8Printable(prompt), stderr);
        std::fflush(stderr);
    }
    std::string line;
    int c = 0;
    while ((c = std::fgetc(stdin)) != EOF && c != '\n')
        line.push_back(char(c));
    if (terminal) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
        std::fputc('\n', stderr); // the Enter the user typed was not echoed
    }
    *ok = c != EOF || !line.empty();
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    return QString::fromStdString(line);
}

} // namespace tollgate::ctl
