import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import { MAIL_KIND_LABELS, type MailItemData, type MailKind, type MailPlan } from '@csp/shared/mail';

/** Templates compiled once; `strict` makes a missing field an error, not an empty string. */
const engine = Handlebars.create();
const template = (name: string, options: { noEscape?: boolean }) =>
  engine.compile(readFileSync(new URL(`./templates/${name}`, import.meta.url), 'utf8'), { strict: true, ...options });
/** HTML escapes every value (Handlebars' default); the plain-text part escapes nothing. */
const htmlTemplate = template('message.html.hbs', {});
const textTemplate = template('message.text.hbs', { noEscape: true });

const SERVICE_NAME = 'Consolidated School Plans';

interface Line {
  text: string;
  url: string;
  note?: string;
}

/** The content of one e-mail before it is written out as text and HTML. */
export interface Letter {
  subject: string;
  heading: string;
  intro?: string;
  groups: { title?: string; lines: Line[] }[];
  action?: { label: string; url: string };
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export interface MailLinks {
  appUrl: string;
  /** The signed one-click unsubscribe page for this person and kind. */
  unsubscribeUrl: string;
}

const planName = (plan: MailPlan) => `${plan.schoolName} ${plan.schoolYear}`;
const absolute = (appUrl: string, path: string) => `${appUrl}${path}`;
const shortDate = (isoDate: string) =>
  new Date(`${isoDate}T12:00:00Z`).toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

/** One event as a sentence about its plan (the plan's name is said around it). */
function sentence(item: Exclude<MailItemData, { type: 'deadline_reminder' }>): string {
  switch (item.type) {
    case 'comment':
      return `${item.actorName} commented on ${item.where.full}`;
    case 'reply':
      return `${item.actorName} replied on ${item.where.full}`;
    case 'mention':
      return `${item.actorName} mentioned you on ${item.where.full}`;
    case 'plan_returned':
      return `${item.actorName} returned the plan for changes`;
    case 'plan_approved':
      return `${item.actorName} approved the plan`;
    case 'plan_submitted':
      return `${item.actorName} submitted the plan for review`;
    case 'plan_shared':
      return `${item.actorName} shared the plan with you (${item.permission === 'edit' ? 'you can edit it' : 'you can read it'})`;
    case 'ownership_transferred':
      return `${item.actorName} made you the owner of the plan`;
  }
}

/** The same event, short enough for a subject line. */
function subjectOf(item: Exclude<MailItemData, { type: 'deadline_reminder' }>): string {
  const where = 'where' in item ? item.where.short : '';
  switch (item.type) {
    case 'comment':
      return `${item.actorName} commented on ${where}`;
    case 'reply':
      return `${item.actorName} replied on ${where}`;
    case 'mention':
      return `${item.actorName} mentioned you on ${where}`;
    default:
      return sentence(item);
  }
}

const ACTION_LABEL: Record<Exclude<MailItemData['type'], 'deadline_reminder'>, string> = {
  comment: 'Open the thread',
  reply: 'Open the thread',
  mention: 'Open the thread',
  plan_returned: 'Open the plan',
  plan_approved: 'Open the plan',
  plan_submitted: 'Review the plan',
  plan_shared: 'Open the plan',
  ownership_transferred: 'Open the plan',
};

function reminderLines(appUrl: string, item: Extract<MailItemData, { type: 'deadline_reminder' }>) {
  return item.plans.map(({ plan, link, sections }) => ({
    title: `${planName(plan)} plan`,
    lines: sections.map((section) => ({
      text: section.title,
      url: absolute(appUrl, link),
      note: section.overdue ? `overdue since ${shortDate(section.dueDate)}` : `due ${shortDate(section.dueDate)}`,
    })),
  }));
}

function reminderSubject(item: Extract<MailItemData, { type: 'deadline_reminder' }>): string {
  const sections = item.plans.flatMap((entry) => entry.sections);
  const overdue = sections.filter((section) => section.overdue).length;
  const due = sections.length - overdue;
  const counts = [due ? `${due} ${due === 1 ? 'section' : 'sections'} due soon` : '', overdue ? `${overdue} overdue` : ''].filter(Boolean).join(', ');
  const where = item.plans.length === 1 ? `${planName(item.plans[0]!.plan)} plan` : `${item.plans.length} plans`;
  return `${where}: ${counts}`;
}

/** The e-mail of one event, sent as it happens. */
export function letterOf(appUrl: string, item: MailItemData): Letter {
  if (item.type === 'deadline_reminder') {
    return {
      subject: reminderSubject(item),
      heading: 'Deadlines of your school’s plan',
      intro: 'These sections are not finished yet.',
      groups: reminderLines(appUrl, item),
      action: { label: 'Open the plan', url: absolute(appUrl, item.plans[0]!.link) },
    };
  }
  return {
    subject: `${planName(item.plan)} plan: ${subjectOf(item)}`,
    heading: `${sentence(item)}.`,
    intro: `In the ${planName(item.plan)} plan.`,
    groups: [],
    action: { label: ACTION_LABEL[item.type], url: absolute(appUrl, item.link) },
  };
}

/** A person's day of events in one e-mail, grouped by plan (reminders keep their own groups). */
export function digestLetterOf(appUrl: string, items: MailItemData[]): Letter {
  const groups = new Map<string, { title: string; lines: Line[] }>();
  const reminderGroups: { title: string; lines: Line[] }[] = [];
  for (const item of items) {
    if (item.type === 'deadline_reminder') {
      reminderGroups.push(...reminderLines(appUrl, item).map((group) => ({ ...group, title: `Deadlines: ${group.title}` })));
      continue;
    }
    const title = `${planName(item.plan)} plan`;
    const group = groups.get(title) ?? { title, lines: [] };
    group.lines.push({ text: sentence(item), url: absolute(appUrl, item.link) });
    groups.set(title, group);
  }
  const all = [...groups.values(), ...reminderGroups];
  const count = all.reduce((sum, group) => sum + group.lines.length, 0);
  const about = all.length === 1 ? all[0]!.title.replace(/^Deadlines: /, '') : `${all.length} plans`;
  return {
    subject: `Daily summary, ${about}: ${count} ${count === 1 ? 'update' : 'updates'}`,
    heading: 'Your daily summary',
    intro: 'What happened on the plans you work on since your last summary.',
    groups: all,
  };
}

/** The letter as plain text and HTML, with the footer that names its kind and how to stop it. */
export function renderLetter(letter: Letter, kind: MailKind | 'digest', links: MailLinks): RenderedMail {
  const context = {
    ...letter,
    intro: letter.intro ?? '',
    action: letter.action ?? false,
    groups: letter.groups.map((group) => ({ title: group.title ?? '', lines: group.lines.map((line) => ({ ...line, note: line.note ?? '' })) })),
    districtName: SERVICE_NAME,
    kindLabel: kind === 'digest' ? 'the daily digest' : MAIL_KIND_LABELS[kind].label.toLowerCase(),
    unsubscribeUrl: links.unsubscribeUrl,
    preferencesUrl: `${links.appUrl}/profile`,
  };
  return { subject: letter.subject, text: textTemplate(context), html: htmlTemplate(context) };
}
