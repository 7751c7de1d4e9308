#include "ui/policies/PolicyEditor.h"

#include "core/policies/Duration.h"
#include "ui/common/Ask.h"
#include "ui/common/ReasonPrompt.h"
#include "ui/common/Session.h"
#include "ui/common/Widgets.h"
#include "ui/policies/CountSpinBox.h"
#include "ui/policies/PolicyDiff.h"
#include "ui/policies/PolicyPreview.h"
#include "ui/policies/WindowRows.h"

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

    m_windows = new WindowRows(this);
    m_addWindow = new QPushButton(tr("Add window"), this);
    m_addWindow->setObjectName(QStringLiteral("addWindowButton"));
    m_addWindow->setToolTip(tr("Several windows at once, all-or-nothing: a hit passes only if "
                               "every window has room (up to %1)")
                                .arg(Policy::kMaxWindows));

    m_cost = makeCountSpinBox(0, this);
    m_cost->setObjectName(QStringLiteral("costSpinBox"));
    m_warn = makeCountSpinBox(0, this);
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

    buildTimeAndFailureFields();
    // Long item texts (time zone ids, failure modes) must not set the form's width.
    for (QComboBox* combo : findChildren<QComboBox*>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(10);
    }

    m_countDenied = new QCheckBox(tr("Denied hits count too"), this);
    m_countDenied->setObjectName(QStringLiteral("countDeniedCheckBox"));
    m_shadow = new QCheckBox(tr("Shadow"), this);
    m_shadow->setObjectName(QStringLiteral("shadowCheckBox"));
    m_shadow->setToolTip(tr("Decide and count every hit as enforcing would, but never deny nor "
                            "ban: the dashboard shows what enforcing would deny."));
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

    // Two columns: what is counted, and what happens then. The form is as wide as the page and
    // half as tall as one column would be, so the table above keeps its rows on a 700 px screen.
    auto* counted = new QFormLayout;
    counted->addRow(tr("Action"), m_action);
    counted->addRow(tr("Algorithm"), m_algorithm);
    counted->addRow(tr("Limits"), m_windows);
    counted->addRow(QString(), m_addWindow);
    counted->addRow(tr("Windows start"), m_align);
    counted->addRow(tr("Cost per hit"), m_cost);
    auto* then = new QFormLayout;
    then->addRow(tr("Warn above"), m_warn);
    then->addRow(tr("On exceeding"), ban);
    then->addRow(tr("Time zone"), m_timeZone);
    auto* flags = new QHBoxLayout; // one row: the form stays as tall on a 700 px screen
    flags->addWidget(m_countDenied);
    flags->addWidget(m_shadow);
    flags->addStretch(1);
    then->addRow(QString(), flags);
    then->addRow(tr("Deny message"), m_message);
    then->addRow(tr("If Redis cannot answer"), m_onError);
    auto* form = new QHBoxLayout;
    form->addLayout(counted, 1);
    form->addSpacing(16);
    form->addLayout(then, 1);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_revision, 1);
    buttons->addWidget(m_save);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
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
    connect(m_previewer, &PolicyPreview::finished, this, [this](const QString& text) {
        // The stored policy is a shadow one and the form enforces it: say what the count means.
        const bool enforcing = m_loaded.shadow && !m_shadow->isChecked();
        m_preview->setText(enforcing ? tr("Switching to enforced: %1").arg(text) : text);
    });
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
    connect(m_windows, &WindowRows::edited, this, &PolicyEditor::onEdited);
    connect(m_addWindow, &QPushButton::clicked, this, [this] {
        m_windows->addRow(QString(), 1);
        onEdited();
    });
    connect(m_align, &QComboBox::currentIndexChanged, this, &PolicyEditor::onEdited);
    connect(m_timeZone, &QComboBox::currentTextChanged, this, &PolicyEditor::onEdited);
    connect(m_onError, &QComboBox::currentIndexChanged, this, &PolicyEditor::onEdited);
    connect(m_cost, &QSpinBox::valueChanged, this, &PolicyEditor::onEdited);
    connect(m_warn, &QSpinBox::valueChanged, this, &PolicyEditor::onEdited);
    connect(m_banMode, &QComboBox::currentIndexChanged, this, &PolicyEditor::onEdited);
    connect(m_banDuration, &QLineEdit::textChanged, this, &PolicyEditor::onEdited);
    connect(m_countDenied, &QCheckBox::toggled, this, &PolicyEditor::onEdited);
    connect(m_shadow, &QCheckBox::toggled, this, &PolicyEditor::onEdited);
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

void PolicyEditor::buildTimeAndFailureFields()
{
    m_align = new QComboBox(this);
    m_align->setObjectName(QStringLiteral("alignComboBox"));
    m_align->addItem(tr("At each subject's first hit"), false);
    m_align->addItem(tr("On the local clock (1m, 1h, 1d, 1w)"), true);
    m_align->setToolTip(tr("Calendar windows (fixed_window only) reset at the start of each "
                           "local minute, hour, day or week (weeks from Monday)"));

    // Editable: any IANA id Qt knows is accepted, the list only saves typing.
    m_timeZone = new QComboBox(this);
    m_timeZone->setObjectName(QStringLiteral("timeZoneComboBox"));
    m_timeZone->setEditable(true);
    m_timeZone->setInsertPolicy(QComboBox::NoInsert);
    for (const QByteArray& zone : QTimeZone::availableTimeZoneIds())
        m_timeZone->addItem(QString::fromUtf8(zone));
    m_timeZone->setToolTip(tr("The zone of \"until midnight\" bans and calendar windows"));

    m_onError = new QComboBox(this);
    m_onError->setObjectName(QStringLiteral("onErrorComboBox"));
    m_onError->addItem(tr("Report the error to the application"), int(FailureMode::Report));
    m_onError->addItem(tr("Allow the hit (fail open)"), int(FailureMode::FailOpen));
    m_onError->addItem(tr("Deny the hit (fail closed)"), int(FailureMode::FailClosed));
    m_onError->addItem(tr("Count in the application (insurance limiter)"),
                       int(FailureMode::Insurance));
    m_onError->setToolTip(tr("What a hit answers when Redis is unreachable or not answering; "
                             "a caller's own choice wins"));
}

void PolicyEditor::fillForm(const Policy& policy)
{
    m_filling = true;
    m_action->setText(QString::fromUtf8(policy.action));
    m_action->setReadOnly(policy.revision > 0); // renaming would be a new policy
    m_algorithm->setCurrentIndex(m_algorithm->findData(int(policy.algorithm)));
    m_windows->setWindows(policy.windows);
    m_align->setCurrentIndex(policy.calendarAligned ? 1 : 0);
    m_timeZone->setCurrentText(QString::fromUtf8(policy.timeZone));
    m_onError->setCurrentIndex(m_onError->findData(int(policy.onError)));
    m_cost->setValue(int(policy.cost));
    m_warn->setValue(int(policy.warn));
    m_banMode->setCurrentIndex(policy.banUntilMidnight ? BanUntilMidnight
                               : policy.banMs > 0      ? BanForDuration
                                                       : NoBan);
    m_banDuration->setText(policy.banMs > 0 ? formatDuration(policy.banMs) : QString());
    m_countDenied->setChecked(policy.countDenied);
    m_shadow->setChecked(policy.shadow);
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
    Policy policy = m_loaded; // keeps the revision
    policy.action = m_action->text().toUtf8();
    policy.algorithm = Algorithm(m_algorithm->currentData().toInt());
    auto windows = m_windows->windows();
    if (!windows)
        return windows.error();
    policy.windows = *windows;
    policy.calendarAligned = m_align->currentData().toBool();
    policy.timeZone = m_timeZone->currentText().trimmed().toUtf8();
    policy.onError = FailureMode(m_onError->currentData().toInt());
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
    policy.shadow = m_shadow->isChecked();
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
    // Every algorithm takes several windows, as hit.lua and tollgatectl do.
    m_addWindow->setEnabled(m_windows->count() < Policy::kMaxWindows);
    m_banDuration->setEnabled(m_banMode->currentIndex() == BanForDuration);
    m_align->setEnabled(fixed || m_align->currentIndex() != 0); // so a wrong choice can be undone
    // The zone only matters for midnight bans and calendar windows.
    m_timeZone->setEnabled(m_banMode->currentIndex() == BanUntilMidnight ||
                           m_align->currentData().toBool());
    const auto policy = editedPolicy();
    m_valid = policy.ok();
    const bool changed = m_modified && (!policy || !samePolicy(*policy, m_loaded));
    if (changed != std::exchange(m_changed, changed))
        Q_EMIT modifiedChanged(changed);
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
    m_save->setEnabled(m_valid && m_changed && !m_saving && blocked.isEmpty());
    m_save->setToolTip(!blocked.isEmpty() ? blocked
                       : !m_changed
                           ? tr("Nothing changed since it was loaded")
                           : tr("Save with compare-and-set on revision %1").arg(m_loaded.revision));
}

void PolicyEditor::save()
{
    auto policy = editedPolicy();
    if (!policy || !m_changed || m_saving || !m_session->canWrite(Session::Write::EditPolicy))
        return;
    // Every save says why, and what it changes: both go into the audit entry.
    const std::optional<Policy> before =
        m_loaded.revision > 0 ? std::optional<Policy>(m_loaded) : std::nullopt;
    const QStringList changes = policyChanges(before, *policy);
    const QString action = QString::fromUtf8(policy->action);
    ReasonPrompt::ask(
        this, tr("Save policy"),
        (before ? tr("Save the policy of \"%1\" (revision %2)? What changes:")
                      .arg(action)
                      .arg(before->revision)
                : tr("Create the policy of \"%1\"?").arg(action)) +
            QStringLiteral("\n\n") +
            (changes.isEmpty() ? tr("(no field changes)") : changes.join(QLatin1Char('\n'))),
        tr("Save"), [this, edited = *policy](const QString& reason) {
            m_saveReason = reason;
            checkPreviewThenSave(edited);
        });
}

void PolicyEditor::checkPreviewThenSave(const Policy& policy)
{
    // Ask first when the new limits deny subjects right now; the count is the preview's, so
    // wait for a preview of exactly this policy.
    m_saveAfterPreview = policy;
    m_previewTimer->stop();
    if (m_lastPreview && samePolicy(m_lastPreview->policy, policy))
        onPreviewCounted(m_lastPreview->policy, m_lastPreview->denied, m_lastPreview->subjects);
    else {
        m_preview->setText(tr("Preview: counting current subjects…"));
        m_previewer->compute(policy);
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
    // The reason goes into the audit entry; policy_set.lua adds the old and new values.
    m_session->policies().save(
        policy, m_session->actor(), m_saveReason, this, [this, policy](Result<qint64> revision) {
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
