# Build time: about half of compiling a source of core or ui is parsing the same Qt and standard
# headers. These lists are precompiled once per group of targets with the same flags (core,
# tollgatectl, the ui libraries with the console) and always PRIVATE, so that the installed
# library's consumers never inherit them. Only headers from outside the project: editing a
# project header rebuilds what includes it, not everything.
set(TOLLGATE_PCH_CORE
    <QByteArray> <QDateTime> <QDeadlineTimer> <QElapsedTimer> <QHash> <QList> <QMutex> <QObject>
    <QPointer> <QString> <QStringList> <QTcpSocket> <QThread> <QTimer>
    <algorithm> <chrono> <functional> <map> <memory> <optional> <variant> <vector>)
set(TOLLGATE_PCH_WIDGETS ${TOLLGATE_PCH_CORE}
    <QAbstractTableModel> <QApplication> <QCheckBox> <QComboBox> <QDialog> <QDialogButtonBox>
    <QFormLayout> <QGroupBox> <QHBoxLayout> <QHeaderView> <QLabel> <QLineEdit> <QLocale>
    <QPushButton> <QTableView> <QVBoxLayout> <QWidget>)
