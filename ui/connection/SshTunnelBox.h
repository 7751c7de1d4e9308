#pragma once

#include "tollgate/ConnectionOptions.h"

#include <QGroupBox>

class QCheckBox;
class QLineEdit;

namespace tollgate::ui {

/// The "SSH tunnel" part of a connection profile: checked, the connection goes through that
/// SSH server (host and port above are then as the server sees them).
class SshTunnelBox : public QGroupBox
{
    Q_OBJECT
public:
    explicit SshTunnelBox(QWidget* parent = nullptr);

    /// The options as edited; an empty destination while unchecked.
    SshOptions options() const;
    void setOptions(const SshOptions& options);
    /// Checked without a server is an error ("SSH server: required").
    Status validate() const;

Q_SIGNALS:
    void edited();

private:
    QLineEdit* m_destination;
    QLineEdit* m_identity;
    QLineEdit* m_config;
    QCheckBox* m_acceptNewHostKey;
};

} // namespace tollgate::ui
