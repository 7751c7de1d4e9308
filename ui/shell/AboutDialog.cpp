#include "ui/shell/AboutDialog.h"

#include "tollgate/Version.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

namespace tollgate::ui::shell {

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("aboutDialog"));
    setWindowTitle(tr("About Tollgate"));

    m_version = new QLabel(tr("<h3>Tollgate %1</h3>").arg(QString::fromLatin1(kVersion)));
    m_version->setObjectName(QStringLiteral("aboutVersionLabel"));

    auto* details = new QLabel(
        tr("<p>Rate limits on Redis: every read-modify-write is one atomic Lua script, so a "
           "counter is never left without its expiry.</p>"
           "<p>Script contract %1 &middot; Qt %2</p>"
           "<p>Licensed under the Apache License, Version 2.0.</p>")
            .arg(kScriptContract)
            .arg(QString::fromLatin1(qVersion())));
    details->setObjectName(QStringLiteral("aboutDetailsLabel"));
    details->setWordWrap(true);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_version, 0, Qt::AlignHCenter);
    layout->addWidget(details);
    layout->addWidget(buttons);
    setMinimumWidth(360);
}

} // namespace tollgate::ui::shell
