#include "ui/policies/PolicyEditor.h"

#include "core/limits/Duration.h"
#include "ui/common/Ask.h"
#include "ui/common/Session.h"
#include "ui/common/Widgets.h"
#include "ui/policies/PolicyDiff.h"
#include "ui/policies/PolicyPreview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QTimeZone>
#include <QTimer>

namespace tollgate::ui {

namespace {

enum BanMode
{
    NoBan,
    BanForDuration,
    BanUntilMidnight
};

QSpinBox* countSpinBox(int minimum, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, int(Policy::kMaxLimit));
    box->setAccelerated(true);
    return box;
}

} // namespace

PolicyEditor::PolicyEditor(Session* session, QWidget* parent) : QWidget(parent), m_session(session)
{
    m_action = new QLineEdit(this);
    m_action->setObjectName(QStringLiteral("actionLineEdit"));
    m_action->setPlaceholderText(tr("e.g. comment"));

    m_algorithm = new QComboBox(this);
    m_algorithm->setObjectName(QStringLiteral("algorithmComboBox"));
    for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingLog, Algorithm::SlidingWindow,
                        Algorithm::TokenBucket})
        m_algorithm->addItem(QString::fromLatin1(algorithmName(a)), int(a));

    auto* windows = new QWidget(this);
    windows->setObjectName(QStringLiteral("windowsWidget"));
    m_windowsLayout = new QVBoxLayout(windows);
    m_windowsLayout->setContentsMargins(0, 0, 0, 0);
    m_addWindow = new QPushButton(tr("Add window"), this);
    m_addWindow->setObjectName(QStringLiteral("addWindowButton"));
    m_addWindow->setToolTip(tr("Several windows at once (all-or-nothing) need fixed_window"));

    m_cost = countSpinBox(0, this);
    m_cost->setObjectName(QStringLiteral("costSpinBox"));
    m_warn = countSpinBox(0, this);
    m_warn->setObjectName(QStringLiteral("warnSpinBox"));
    m_warn->setSpecialValueText(tr("none"));

    m_banMode = new QComboBox(this);
    m_banMode->setObjectName(QStringLiteral("banComboBox"));
    m_banMode->addItems({tr("No ban"), tr("Ban for"), tr("Ban until midnight")});
    m_banDuration = new QLineEdit(this);
    m_banDuration->setObjectName(QStringLiteral("banLineEdit"));
    m_banDuration->setPlaceholderText(tr("e.g. 1h"));
    auto* ban = new QHBoxLayout;
    ban->addWidget(m_banMode);
    ban->addWidget(m_banDuration, 1);

    m_countDenied = new QCheckBox(tr("Denied hits count too"), this);
    m_countDenied->setObjectName(QStringLiteral("countDeniedCheckBox"));
    m_message = new QLineEdit(this);
    m_message->setObjectName(QStringLiteral("messageLineEdit"));
    m_message->setPlaceholderText(tr("Shown to the user when denied"));

    m_revision = new QLabel(this);
    m_revision->setObjectName(QStringLiteral("revisionLabel"));
    m_error = makeErrorLabel(this);
    m_underneath = new QLabel(this);
    m_underneath->setObjectName(QStringLiteral("changedUnderneathLabel"));
    m_underneath->setWordWrap(true);
    m_underneath->hide();
    m_preview = new QLabel(this);
    m_preview->setObjectName(QStringLiteral("previewLabel"));
    m_preview->setWordWrap(true);

    m_save = new QPushButton(tr("Save"), this);
    m_save->setObjectName(QStringLiteral("saveButton"));
    m_save->setProperty("tollgateWrite", static_cast<int>(Session::Write::EditPolicy));
    m_save->setDefault(true);

    auto* form = new QFormLayout;
    form->addRow(tr("Action"), m_action);
    form->addRow(tr("Algorithm"), m_algorithm);
    form->addRow(tr("Limits"), windows);
    form->addRow(QString(), m_addWindow);
    form->addRow(tr("Cost per hit"), m_cost);
    form->addRow(tr("Warn above"), m_warn);
    form->addRow(tr("On exceeding"), ban);
    form->addRow(QString(), m_countDenied);
    form->addRow(tr("Deny message"), m_message);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_revision, 1);
    buttons->addWidget(m_save);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_underneath);
    layout->addWidget(m_error);
    layout->addWidget(m_preview);
    layout->addStretch(1);
    layout->addLayout(buttons);

    m_previewTimer = new QTimer(this);
    m_previewTimer->setSingleShot(true);
    m_previewTimer->setInterval(400);
    m_previewer = new PolicyPreview(session, this);
    connect(m_previewTimer, &QTimer::timeout, this, [this] {
        auto policy = editedPolicy();
        if (!policy) {
            m_preview->clear();
            return;
        }
        m_preview->setText(tr("Preview: counting current subjects…"));
        m_previewer->compute(*policy);
    });
    connect(m_previewer, &PolicyPreview::finished, m_preview, &QLabel::setText);
    // Subjects come and go while the form is open: a preview from minutes ago that says "no
    // current subjects" would be wrong by now. Recount quietly while the editor is on screen.
    auto* recount = new QTimer(this);
    recount->setInterval(kPreviewRefreshMs);
    connect(recount, &QTimer::timeout, this, [this] {
        // Never supersede a count still running (a large keyspace takes a while).
        if (!isVisible() || !m_valid || m_previewTimer->isActive() || m_saveAfterPreview ||
            m_previewer->isBusy())
            return;
        if (const auto policy = editedPolicy())
            m_previewer->compute(*policy);
    });
    recount->start();
    connect(m_previewer, &PolicyPreview::counted, this, &PolicyEditor::onPreviewCounted);
    connect(session, &Session::eventReceived, this,
            [this](const QByteArray& event, const QByteArray&, const QByteArray& action) {
                if (event == "policy" && !action.isEmpty() && action == m_loaded.action &&
                    m_loaded.revision > 0)
                    checkUnderneath();
            });

    connect(m_action, &QLineEdit::textChanged, this, &PolicyEditor::onEdited);
    connect(m_algorithm, &QComboBox::currentIndexChanged, this, &PolicyEditor::onEdited);
    connect(m_addWindow, &QPushButton::clicked, this, [this] {
        addWindowRow(QString(), 1);
        onEdited();
    });
    connect(m_cost, &QSpinBox::valueChanged, this, &PolicyEditor::onEdited);
    connect(m_warn, &QSpinBox::valueChanged, this, &PolicyEditor::onEdited);
    connect(m_banMode, &QComboBox::currentIndexChanged, this, &PolicyEditor::onEdited);
    connect(m_banDuration, &QLineEdit::textChanged, this, &PolicyEditor::onEdited);
    connect(m_countDenied, &QCheckBox::toggled, this, &PolicyEditor::onEdited);
    connect(m_message, &QLineEdit::textChanged, this, &PolicyEditor::onEdited);
    connect(m_save, &QPushButton::clicked, this, &PolicyEditor::save);
    auto* saveKey =
        new QShortcut(QKeySequence::Save, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(saveKey, &QShortcut::activated, this, [this] {
        if (m_save->isEnabled())
            save();
    });
    connect(session, &Session::permissionsChanged, this, &PolicyEditor::updateSaveButton);

    startNew();
}

void PolicyEditor::addWindowRow(const QString& window, qint64 limit)
{
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    WindowRow r{row, new QLineEdit(window, row), countSpinBox(0, row),
                new QPushButton(tr("Remove"), row)};
    r.window->setPlaceholderText(tr("window, e.g. 30s"));
    r.limit->setValue(int(limit));
    r.limit->setPrefix(tr("limit "));
    layout->addWidget(r.window, 1);
    layout->addWidget(r.limit, 1);
    layout->addWidget(r.remove);
    connect(r.window, &QLineEdit::textChanged, this, &PolicyEditor::onEdited);
    connect(r.limit, &QSpinBox::valueChanged, this, &PolicyEditor::onEdited);
    connect(r.remove, &QPushButton::clicked, this, [this, row] {
        removeWindowRow(row);
        onEdited();
    });
    m_windowsLayout->addWidget(row);
    m_windows.append(r);
    renameWindowRows();
}

void PolicyEditor::removeWindowRow(QWidget* row)
{
    for (int i = 0; i < m_windows.size(); ++i) {
        if (m_windows[i].row == row) {
            // deleteLater: until then the old row must not be found by its name
            for (QWidget* child : {static_cast<QWidget*>(m_windows[i].window),
                                   static_cast<QWidget*>(m_windows[i].limit),
                                   static_cast<QWidget*>(m_windows[i].remove)})
                child->setObjectName(QString());
            m_windows.removeAt(i);
            row->deleteLater();
            row->hide();
            break;
        }
    }
    renameWindowRows();
}

// The first row is windowLineEdit / limitSpinBox, the next window2LineEdit / limit2SpinBox ...
void PolicyEditor::renameWindowRows()
{
    for (int i = 0; i < m_windows.size(); ++i) {
        const QString n = i == 0 ? QString() : QString::number(i + 1);
        m_windows[i].window->setObjectName(QStringLiteral("window%1LineEdit").arg(n));
        m_windows[i].limit->setObjectName(QStringLiteral("limit%1SpinBox").arg(n));
        m_windows[i].remove->setObjectName(QStringLiteral("removeWindow%1Button").arg(n));
        m_windows[i].remove->setVisible(m_windows.size() > 1);
    }
}

void PolicyEditor::fillForm(const Policy& policy)
{
    m_filling = true;
    m_action->setText(QString::fromUtf8(policy.action));
    m_action->setReadOnly(policy.revision > 0); // renaming would be a new policy
    m_algorithm->setCurrentIndex(m_algorithm->findData(int(policy.algorithm)));
    while (!m_windows.isEmpty())
        removeWindowRow(m_windows.first().row);
    for (const WindowLimit& w : policy.windows)
        addWindowRow(formatDuration(w.windowMs), w.limit);
    if (m_windows.isEmpty())
        addWindowRow(QString(), 1);
    m_cost->setValue(int(policy.cost));
    m_warn->setValue(int(policy.warn));
    m_banMode->setCurrentIndex(policy.banUntilMidnight ? BanUntilMidnight
                               : policy.banMs > 0      ? BanForDuration
                                                       : NoBan);
    m_banDuration->setText(policy.banMs > 0 ? formatDuration(policy.banMs) : QString());
    m_countDenied->setChecked(policy.countDenied);
    m_message->setText(policy.message);
    m_revision->setText(
        policy.revision > 0
            ? tr("Revision %1, updated by %2").arg(policy.revision).arg(policy.updatedBy)
            : tr("New policy"));
    m_filling = false;
    m_modified = false;
    revalidate();
}

void PolicyEditor::load(const Policy& policy)
{
    m_loaded = policy;
    m_underneath->hide();
    fillForm(policy);
}

void PolicyEditor::checkUnderneath()
{
    const QByteArray action = m_loaded.action;
    const qint64 revision = m_loaded.revision;
    m_session->policies().get(action, this, [this, action, revision](Result<Policy> stored) {
        if (action != m_loaded.action || revision != m_loaded.revision)
            return; // another policy (or a newer load) is in the form by now
        const bool deleted = !stored && stored.error().kind == ErrorKind::NotFound;
        if (!stored && !deleted)
            return; // cannot tell; Save still compares revisions
        if (!deleted && stored->revision == revision)
            return; // our own save, or nothing new
        if (!deleted && !m_modified) {
            // Nothing typed yet: show the current version rather than a stale one.
            const QString who = stored->updatedBy;
            load(*stored);
            m_underneath->setText(tr("%1 changed this policy (now revision %2); the form shows "
                                     "their version.")
                                      .arg(who.isEmpty() ? tr("Someone") : who)
                                      .arg(stored->revision));
            m_underneath->show();
            return;
        }
        m_underneath->setText(
            deleted ? tr("Someone deleted this policy while you were editing it. Saving asks "
                         "what to do.")
                    : tr("%1 changed this policy while you were editing it (now revision %2, "
                         "you edited %3). Saving asks what to do.")
                          .arg(stored->updatedBy.isEmpty() ? tr("Someone") : stored->updatedBy)
                          .arg(stored->revision)
                          .arg(revision));
        m_underneath->show();
    });
}

void PolicyEditor::startNew()
{
    Policy policy;
    policy.windows = {{10, 60'000}};
    policy.timeZone = QTimeZone::systemTimeZoneId();
    m_loaded = policy;
    fillForm(policy);
}

Result<Policy> PolicyEditor::editedPolicy() const
{
    Policy policy = m_loaded; // keeps the revision and the time zone
    policy.action = m_action->text().toUtf8();
    policy.algorithm = Algorithm(m_algorithm->currentData().toInt());
    policy.windows.clear();
    for (const WindowRow& row : m_windows) {
        auto window = parseDuration(row.window->text().trimmed());
        if (!window)
            return Error{ErrorKind::InvalidInput,
                         tr("window '%1': %2").arg(row.window->text(), window.error().message)};
        policy.windows.push_back({row.limit->value(), *window});
    }
    policy.cost = m_cost->value();
    policy.warn = m_warn->value();
    policy.banMs = 0;
    policy.banUntilMidnight = m_banMode->currentIndex() == BanUntilMidnight;
    if (m_banMode->currentIndex() == BanForDuration) {
        auto ban = parseDuration(m_banDuration->text().trimmed());
        if (!ban)
            return Error{ErrorKind::InvalidInput, tr("ban duration: %1").arg(ban.error().message)};
        policy.banMs = *ban;
    }
    policy.countDenied = m_countDenied->isChecked();
    policy.message = m_message->text();
    const Status valid = policy.validate();
    if (!valid)
        return valid.error();
    return policy;
}

void PolicyEditor::onEdited()
{
    if (m_filling)
        return;
    m_modified = true;
    m_saveAfterPreview.reset(); // a Save waiting for its preview is about the old input
    revalidate();
}

void PolicyEditor::revalidate()
{
    const bool fixed = Algorithm(m_algorithm->currentData().toInt()) == Algorithm::FixedWindow;
    m_addWindow->setEnabled(fixed && m_windows.size() < 8);
    m_banDuration->setEnabled(m_banMode->currentIndex() == BanForDuration);
    const auto policy = editedPolicy();
    m_valid = policy.ok();
    // An untouched new form is incomplete, not wrong: no red text before anything is typed.
    m_error->setText(m_valid || !m_modified ? QString() : policy.error().message);
    m_error->setVisible(!m_valid && m_modified);
    updateSaveButton();
    if (m_valid) {
        m_previewTimer->start();
    } else {
        m_previewTimer->stop();
        m_previewer->cancel();
        m_preview->clear();
    }
}

void PolicyEditor::updateSaveButton()
{
    const QString blocked = m_session->writeBlockedReason(Session::Write::EditPolicy);
    m_save->setEnabled(m_valid && !m_saving && blocked.isEmpty());
    m_save->setToolTip(blocked.isEmpty()
                           ? tr("Save with compare-and-set on revision %1").arg(m_loaded.revision)
                           : blocked);
}

void PolicyEditor::save()
{
    auto policy = editedPolicy();
    if (!policy || m_saving || !m_session->canWrite(Session::Write::EditPolicy))
        return;
    // Ask first when the new limits deny subjects right now; the count is the preview's, so
    // wait for a preview of exactly this policy.
    m_saveAfterPreview = *policy;
    m_previewTimer->stop();
    if (m_lastPreview && samePolicy(m_lastPreview->policy, *policy))
        onPreviewCounted(m_lastPreview->policy, m_lastPreview->denied, m_lastPreview->subjects);
    else {
        m_preview->setText(tr("Preview: counting current subjects…"));
        m_previewer->compute(*policy);
    }
}

bool PolicyEditor::samePolicy(const Policy& a, const Policy& b)
{
    return a.action == b.action && a.toFields() == b.toFields();
}

void PolicyEditor::onPreviewCounted(const Policy& policy, int denied, int subjects)
{
    m_lastPreview = PreviewCount{policy, denied, subjects};
    if (!m_saveAfterPreview || !samePolicy(*m_saveAfterPreview, policy))
        return;
    const Policy toSave = *std::exchange(m_saveAfterPreview, std::nullopt);
    if (denied <= 0) { // none, or the preview could not tell: Save as asked
        saveWithRevision(toSave);
        return;
    }
    Ask::confirm(this, tr("Deny current subjects?"),
                 tr("With these limits %1 of the %2 current subjects of \"%3\" would be denied "
                    "now. Save anyway?")
                     .arg(denied)
                     .arg(subjects)
                     .arg(QString::fromUtf8(toSave.action)),
                 [this, toSave] { saveWithRevision(toSave); });
}

void PolicyEditor::saveWithRevision(Policy policy)
{
    m_saving = true;
    updateSaveButton();
    m_session->policies().save(
        policy, m_session->actor(), this, [this, policy](Result<qint64> revision) {
            m_saving = false;
            if (!revision) {
                updateSaveButton();
                if (revision.error().kind == ErrorKind::Conflict) {
                    resolveConflict(policy, revision.error());
                } else {
                    m_error->setText(
                        tr("Save failed (%1): %2")
                            .arg(errorKindName(revision.error().kind), revision.error().message));
                    m_error->setVisible(true);
                }
                return;
            }
            Policy stored = policy;
            stored.revision = *revision;
            stored.updatedBy = m_session->actor();
            stored.updatedMs = QDateTime::currentMSecsSinceEpoch();
            load(stored);
            Q_EMIT saved(stored.action, stored.revision);
        });
}

void PolicyEditor::resolveConflict(const Policy& mine, const Error& error)
{
    m_saving = true; // until the question is answered
    updateSaveButton();
    m_session->policies().get(mine.action, this, [this, mine, error](Result<Policy> theirs) {
        m_saving = false;
        const bool deleted = !theirs && theirs.error().kind == ErrorKind::NotFound;
        if (!theirs && !deleted) {
            updateSaveButton();
            m_error->setText(tr("Save failed: %1").arg(error.message));
            m_error->setVisible(true);
            return;
        }
        const QString action = QString::fromUtf8(mine.action);
        const QString text =
            deleted
                ? tr("The policy of \"%1\" was deleted by someone else while you edited "
                     "revision %2.")
                      .arg(action)
                      .arg(mine.revision)
                : tr("%1 changed the policy of \"%2\" while you were editing: it is now at "
                     "revision %3, you edited revision %4.\n\n%5")
                      .arg(theirs->updatedBy.isEmpty() ? tr("Someone") : theirs->updatedBy, action)
                      .arg(theirs->revision)
                      .arg(mine.revision)
                      .arg(policyDifferenceText(*theirs, mine));
        const std::optional<Policy> current =
            deleted ? std::nullopt : std::optional<Policy>(*theirs);
        Ask::choose(this, tr("Policy changed"), text,
                    {tr("Reload theirs"), tr("Overwrite with mine"), tr("Cancel")},
                    [this, mine, current](int answer) {
                        if (answer == 0) {
                            if (current)
                                load(*current);
                            else
                                startNew();
                        } else if (answer == 1) {
                            Policy overwrite = mine;
                            overwrite.revision = current ? current->revision : 0;
                            saveWithRevision(overwrite);
                            return;
                        }
                        updateSaveButton();
                    });
    });
}

} // namespace tollgate::ui
