#include "ui/shell/ScreenshotTour.h"

#include "ui/dashboard/BanCounter.h"
#include "ui/dashboard/DashboardPage.h"
#include "ui/keys/KeysPage.h"
#include "ui/policies/PoliciesModel.h"
#include "ui/policies/PoliciesPage.h"
#include "ui/shell/AboutDialog.h"
#include "ui/shell/MainWindow.h"
#include "ui/subjects/SubjectsLoader.h"
#include "ui/subjects/SubjectsPage.h"

#include <QDir>
#include <QLineEdit>
#include <QPixmap>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QWidget>

namespace tollgate::ui {

namespace {

constexpr int kSettleMs = 1500; // a page's first refresh, a chart's first points
// A page still reading a big keyspace (a million subjects) is waited for, checked this often,
// up to this long: a picture shows the page loaded, not its progress.
constexpr int kLoadPollMs = 250;
constexpr int kLoadTimeoutMs = 300'000;

bool stillLoading(QWidget* page)
{
    if (auto* subjects = qobject_cast<SubjectsPage*>(page))
        return !subjects->loader()->firstPassDone();
    if (auto* keys = qobject_cast<KeysPage*>(page))
        return keys->isScanning();
    // The ban tiles wait for the first count of the ban keys; the near-limit list is a sweep
    // that never ends and says how far it got.
    if (auto* bans = qobject_cast<DashboardPage*>(page) ? page->findChild<BanCounter*>() : nullptr)
        return !bans->hasPass();
    return false;
}
const QString kUserStep = QStringLiteral("user");
// The user's Unban dialog, when the tour's user is banned (the demo's abuser is).
const QString kUnbanStep = QStringLiteral("user-unban");
// The dashboard again with its charts over the last hour and the last day.
const QString kHourStep = QStringLiteral("dashboard-1h");
const QString kDayStep = QStringLiteral("dashboard-24h");
const QString kAboutStep = QStringLiteral("about");
// The Policies page's History tab, an earlier revision selected (its diff with the current one).
const QString kPolicyHistoryStep = QStringLiteral("policies-history");

} // namespace

ScreenshotTour::ScreenshotTour(MainWindow* window, QString directory, QByteArray user,
                               QObject* parent)
    : QObject(parent), m_window(window), m_directory(std::move(directory))
{
    m_users.append({kUserStep, std::move(user)});
}

void ScreenshotTour::start(int warmUpMs)
{
    QDir().mkpath(m_directory);
    m_window->resize(m_size);
    // The order of the README: dashboard, subjects, the user, then the rest.
    for (const QString& key : m_window->pageKeys()) {
        m_steps << key;
        if (key == QLatin1String("dashboard") && qobject_cast<DashboardPage*>(m_window->page(key)))
            m_steps << kHourStep << kDayStep;
        if (key == QLatin1String("subjects"))
            for (const auto& [step, user] : std::as_const(m_users))
                m_steps << step;
        if (key == QLatin1String("policies") && qobject_cast<PoliciesPage*>(m_window->page(key)))
            m_steps << kPolicyHistoryStep;
    }
    if (!m_steps.contains(kUserStep))
        for (const auto& [step, user] : std::as_const(m_users))
            m_steps << step;
    m_steps << kAboutStep;
    // Show the first page during the warm-up, so it has data when we get there.
    if (!m_steps.isEmpty() && !userOf(m_steps.first()))
        m_window->showPage(m_steps.first());
    QTimer::singleShot(warmUpMs, this, &ScreenshotTour::next);
}

void ScreenshotTour::next()
{
    if (!m_window || m_steps.isEmpty()) {
        Q_EMIT finished(m_failed.isEmpty(), m_failed);
        return;
    }
    const QString step = m_steps.takeFirst();
    if (const QByteArray* user = userOf(step)) {
        m_userDialog = m_window->openUser(*user);
        if (!m_userDialog) {
            m_failed << step;
            next();
            return;
        }
        m_userDialog->resize(m_size.boundedTo(QSize(1000, 700)));
        QTimer::singleShot(kSettleMs + 1000, this, [this, step] {
            capture(m_userDialog, step);
            if (step == kUserStep && captureUnban())
                return;
            if (m_userDialog)
                m_userDialog->close();
            QTimer::singleShot(200, this, &ScreenshotTour::next);
        });
        return;
    }
    if (step == kHourStep || step == kDayStep) {
        auto* dashboard = qobject_cast<DashboardPage*>(m_window->page(QStringLiteral("dashboard")));
        m_window->showPage(QStringLiteral("dashboard"));
        dashboard->setRange(step == kHourStep ? ChartRange::Hour : ChartRange::Day);
        QTimer::singleShot(kSettleMs, this, [this, step, dashboard] {
            capture(m_window, step);
            if (step == kDayStep)
                dashboard->setRange(ChartRange::FiveMinutes);
            next();
        });
        return;
    }
    if (step == kPolicyHistoryStep) {
        auto* page = qobject_cast<PoliciesPage*>(m_window->page(QStringLiteral("policies")));
        m_window->showPage(QStringLiteral("policies"));
        // The demo's "like", whose history has the most to show when it was edited.
        if (auto* table = page->findChild<QTableView*>(QStringLiteral("policiesTableView"));
            table && page->model()->rowOf("like") >= 0)
            table->selectRow(page->model()->rowOf("like"));
        page->showHistory();
        QTimer::singleShot(kSettleMs, this, [this, page] {
            auto* revisions =
                page->findChild<QTableWidget*>(QStringLiteral("revisionsTableWidget"));
            if (revisions && revisions->rowCount() > 1)
                revisions->selectRow(1);
            QTimer::singleShot(300, this, [this, page] {
                capture(m_window, kPolicyHistoryStep);
                if (auto* tabs = page->findChild<QTabWidget*>(QStringLiteral("policyTabWidget")))
                    tabs->setCurrentIndex(0);
                next();
            });
        });
        return;
    }
    if (step == kAboutStep) {
        m_window->showAbout();
        QTimer::singleShot(500, this, [this] {
            auto* about = m_window->findChild<shell::AboutDialog*>();
            capture(about, kAboutStep);
            if (about)
                about->close();
            QTimer::singleShot(200, this, &ScreenshotTour::next);
        });
        return;
    }
    m_window->showPage(step);
    // A page that looks a user up (the Topology page) shows the tour's user.
    if (auto* userField =
            m_window->page(step)->findChild<QLineEdit*>(QStringLiteral("userLineEdit")))
        userField->setText(QString::fromUtf8(m_users.first().second));
    m_window->raise();
    m_window->activateWindow();
    QTimer::singleShot(kSettleMs, this, [this, step] { captureWhenLoaded(step, kLoadTimeoutMs); });
}

void ScreenshotTour::captureWhenLoaded(const QString& step, int patienceMs)
{
    if (!m_window)
        return next();
    if (patienceMs > 0 && stillLoading(m_window->page(step))) {
        QTimer::singleShot(kLoadPollMs, this, [this, step, patienceMs] {
            captureWhenLoaded(step, patienceMs - kLoadPollMs);
        });
        return;
    }
    // The model's last batch and the view's repaint after the load ends.
    QTimer::singleShot(patienceMs == kLoadTimeoutMs ? 0 : kSettleMs, this, [this, step] {
        capture(m_window, step);
        next();
    });
}

bool ScreenshotTour::captureUnban()
{
    // The demo's abuser is banned: what the Unban dialog predicts is worth a picture.
    auto* unban = m_userDialog
                      ? m_userDialog->findChild<QPushButton*>(QStringLiteral("unbanButton"))
                      : nullptr;
    if (!unban || !unban->isEnabled())
        return false;
    unban->click();
    QTimer::singleShot(kSettleMs, this, [this] {
        QWidget* dialog = m_userDialog
                              ? m_userDialog->findChild<QWidget*>(QStringLiteral("unbanDialog"))
                              : nullptr;
        capture(dialog, kUnbanStep);
        if (m_userDialog)
            m_userDialog->close();
        QTimer::singleShot(200, this, &ScreenshotTour::next);
    });
    return true;
}

const QByteArray* ScreenshotTour::userOf(const QString& step) const
{
    for (const auto& [name, user] : m_users)
        if (name == step)
            return &user;
    return nullptr;
}

void ScreenshotTour::capture(QWidget* widget, const QString& name)
{
    const QString path = QDir(m_directory).filePath(name + QStringLiteral(".png"));
    if (!widget || !widget->grab().save(path))
        m_failed << name;
}

} // namespace tollgate::ui
