#pragma once

#include <QDialog>

class QLabel;

namespace tollgate::ui::shell {

/// Help › About Tollgate: the version and the script contract of this build (tollgate/Version.h,
/// from the project's CMake version), the Qt it runs on, and the licence.
class AboutDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);

    QLabel* versionLabel() const { return m_version; }

private:
    QLabel* m_version;
};

} // namespace tollgate::ui::shell
