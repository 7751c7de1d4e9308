// The one place that knows which page classes exist. Pages are built by different people
// at different times: each is included only when its header is there, so the shell builds
// with whatever subset exists and picks the others up when they land.
#include "ui/shell/PageFactory.h"

#include <QLabel>

#if __has_include("ui/dashboard/DashboardPage.h")
#include "ui/dashboard/DashboardPage.h"
#define TOLLGATE_HAVE_DASHBOARD 1
#endif
#if __has_include("ui/subjects/SubjectsPage.h")
#include "ui/subjects/SubjectsPage.h"
#define TOLLGATE_HAVE_SUBJECTS 1
#endif
#if __has_include("ui/policies/PoliciesPage.h")
#include "ui/policies/PoliciesPage.h"
#define TOLLGATE_HAVE_POLICIES 1
#endif
#if __has_include("ui/keys/KeysPage.h")
#include "ui/keys/KeysPage.h"
#include "ui/keys/ValueViewer.h"
#define TOLLGATE_HAVE_KEYS 1
#endif
#if __has_include("ui/lua/LuaPage.h")
#include "ui/lua/LuaPage.h"
#define TOLLGATE_HAVE_LUA 1
#endif
#if __has_include("ui/slowlog/SlowlogPage.h")
#include "ui/slowlog/SlowlogPage.h"
#define TOLLGATE_HAVE_SLOWLOG 1
#endif
#if __has_include("ui/audit/AuditPage.h")
#include "ui/audit/AuditPage.h"
#define TOLLGATE_HAVE_AUDIT 1
#endif
#if __has_include("ui/cluster/ClusterPage.h")
#include "ui/cluster/ClusterPage.h"
#define TOLLGATE_HAVE_CLUSTER 1
#endif
#if __has_include("ui/services/ServicesPage.h")
#include "ui/services/ServicesPage.h"
#define TOLLGATE_HAVE_SERVICES 1
#endif
#if __has_include("ui/user/UserDetailDialog.h")
#include "ui/user/UserDetailDialog.h"
#define TOLLGATE_HAVE_USER 1
#endif

namespace tollgate::ui {

namespace {

QWidget* placeholder(const QString& title, QWidget* parent)
{
    auto* label =
        new QLabel(QObject::tr("The %1 page is not part of this build yet.").arg(title), parent);
    label->setAlignment(Qt::AlignCenter);
    label->setEnabled(false);
    return label;
}

template <typename Page> QWidget* make(Session* session, QWidget* parent)
{
    return new Page(session, parent);
}

} // namespace

std::vector<PageInfo>
createPages(Session* session, QWidget* parent,
            [[maybe_unused]] const std::function<void(const QByteArray&)>& openUser)
{
    std::vector<PageInfo> pages;
    auto add = [&](const char* key, const QString& title, QWidget* widget) {
        PageInfo info{QLatin1String(key), title, widget, widget != nullptr};
        if (!info.widget)
            info.widget = placeholder(title, parent);
        if (info.widget->objectName().isEmpty())
            info.widget->setObjectName(QLatin1String(key) + QStringLiteral("Page"));
        pages.push_back(info);
    };
    [[maybe_unused]] auto none = [](Session*, QWidget*) -> QWidget* { return nullptr; };
    if (!session) {
        // Pages need a session; until there is one, say how to get one.
        for (const auto& [key, title] :
             {std::pair{"dashboard", QObject::tr("Dashboard")},
              std::pair{"subjects", QObject::tr("Subjects")},
              std::pair{"policies", QObject::tr("Policies")},
              std::pair{"keys", QObject::tr("Keys")}, std::pair{"lua", QObject::tr("Lua")},
              std::pair{"slowlog", QObject::tr("Slowlog")},
              std::pair{"audit", QObject::tr("Audit log")},
              std::pair{"cluster", QObject::tr("Topology")},
              std::pair{"services", QObject::tr("Services")}}) {
            auto* label = new QLabel(QObject::tr("Not connected: use File \u203a Connect\u2026 "
                                                 "(Ctrl+Shift+O)."),
                                     parent);
            label->setAlignment(Qt::AlignCenter);
            pages.push_back({QLatin1String(key), title, label, false});
        }
        return pages;
    }

#ifdef TOLLGATE_HAVE_DASHBOARD
    auto* dashboard = new DashboardPage(session, parent);
    if (openUser)
        QObject::connect(dashboard, &DashboardPage::userRequested, dashboard, openUser);
    add("dashboard", QObject::tr("Dashboard"), dashboard);
#else
    add("dashboard", QObject::tr("Dashboard"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_SUBJECTS
    add("subjects", QObject::tr("Subjects"), make<SubjectsPage>(session, parent));
#else
    add("subjects", QObject::tr("Subjects"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_POLICIES
    add("policies", QObject::tr("Policies"), make<PoliciesPage>(session, parent));
#else
    add("policies", QObject::tr("Policies"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_KEYS
    add("keys", QObject::tr("Keys"), make<KeysPage>(session, parent));
#else
    add("keys", QObject::tr("Keys"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_LUA
    add("lua", QObject::tr("Lua"), make<LuaPage>(session, parent));
#else
    add("lua", QObject::tr("Lua"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_SLOWLOG
    add("slowlog", QObject::tr("Slowlog"), make<SlowlogPage>(session, parent));
#else
    add("slowlog", QObject::tr("Slowlog"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_AUDIT
    auto* audit = new AuditPage(session, parent);
    if (openUser)
        QObject::connect(audit, &AuditPage::userRequested, audit, openUser);
    add("audit", QObject::tr("Audit log"), audit);
#else
    add("audit", QObject::tr("Audit log"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_CLUSTER
    add("cluster", QObject::tr("Topology"), make<ClusterPage>(session, parent));
#else
    add("cluster", QObject::tr("Topology"), none(session, parent));
#endif
#ifdef TOLLGATE_HAVE_SERVICES
    add("services", QObject::tr("Services"), make<ServicesPage>(session, parent));
#else
    add("services", QObject::tr("Services"), none(session, parent));
#endif
    return pages;
}

bool filterSubjects([[maybe_unused]] QWidget* subjects, [[maybe_unused]] const QString& text)
{
#ifdef TOLLGATE_HAVE_SUBJECTS
    if (auto* page = qobject_cast<SubjectsPage*>(subjects)) {
        page->filterBy(text);
        return true;
    }
#endif
    return false;
}

QWidget* createUserDialog([[maybe_unused]] Session* session,
                          [[maybe_unused]] const QByteArray& user, [[maybe_unused]] QWidget* parent)
{
#ifdef TOLLGATE_HAVE_USER
    return new UserDetailDialog(session, user, parent);
#else
    return nullptr;
#endif
}

QWidget* createKeyViewer([[maybe_unused]] Session* session, [[maybe_unused]] const QByteArray& key,
                         [[maybe_unused]] QWidget* parent)
{
#ifdef TOLLGATE_HAVE_KEYS
    return new ValueViewer(session, key, parent);
#else
    return nullptr;
#endif
}

} // namespace tollgate::ui
