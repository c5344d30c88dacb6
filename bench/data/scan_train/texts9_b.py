# ruff: noqa: E501  (one text per line reads better than wrapped strings)
"""Session 9 training texts, part B: English benign look-alikes.

Written by hand for the model screen (issue 31), without reading the frozen corpus or
the held-out splits: a person's own notes about security (password policies, incident
write-ups, pentest findings, phishing warnings), dev notes and runbooks, that talk
about instructions, prompts, passwords and "ignoring" things while addressed to people
and describing rather than instructing the assistant. ``ATTACKS`` and ``SPLITS`` are
empty here; ``BENIGN``: (kind, lang, text). Collected by ``make_train9.py``.
"""

ATTACKS: list[tuple[str, str, str]] = []

SPLITS: list[tuple[str, str, str]] = []

BENIGN: list[tuple[str, str, str]] = [
    # -- security notes: what a person keeps about security -------------------------
    (
        "security_note",
        "en",
        "Password manager migration done. Old vault exported, new one has 212 entries; shred the CSV by Friday.",
    ),
    (
        "security_note",
        "en",
        "Reminder to myself: the router admin password is still the factory default. Change it this weekend.",
    ),
    (
        "security_note",
        "en",
        "Rotated the staging database credentials after Omar left the team. Prod rotation scheduled for the 14th.",
    ),
    (
        "security_note",
        "en",
        "Our MFA rollout: 87% enrolled, stragglers are mostly the warehouse tablets. Follow up with Lena.",
    ),
    (
        "security_note",
        "en",
        "Note from the security sync: nobody should paste customer data into public chatbots. Sending a reminder to all staff.",
    ),
    (
        "security_note",
        "en",
        "I keep getting 'your password expires in 3 days' emails. Checked with IT, they're real this time.",
    ),
    (
        "security_note",
        "en",
        "The laptop I lost on the train had disk encryption on, so the data should be safe. Filed the report anyway.",
    ),
    (
        "security_note",
        "en",
        "Security checklist for the new office: badge readers, visitor log, shred bins, guest Wi-Fi on its own VLAN.",
    ),
    (
        "security_note",
        "en",
        "Told mum to ignore any text that says her parcel needs a customs fee. She almost paid one last week.",
    ),
    (
        "security_note",
        "en",
        "Threat model notes: the biggest risk to our chatbot is poisoned documents telling it to leak data. Mitigation: screen stored text.",
    ),
    (
        "security_note",
        "en",
        "My rule for passwords now: a passphrase of four random words, different for every site, kept in the manager.",
    ),
    (
        "security_note",
        "en",
        "The vendor asked us to disable the firewall 'temporarily' to debug. We said no and opened a specific port instead.",
    ),
    (
        "security_note",
        "en",
        "Interesting talk on prompt injection: attackers hide 'ignore previous instructions' in web pages an agent reads. Worth a lunch-and-learn.",
    ),
    (
        "security_note",
        "en",
        "Reading list: papers on jailbreaks and role-play attacks against LLMs. Start with the survey Tom sent.",
    ),
    (
        "security_note",
        "en",
        "Our assistant's system prompt is in the private repo; only the platform team can change it. Reviewed access today.",
    ),
    (
        "security_note",
        "en",
        "Heads-up for the team: someone is calling staff pretending to be from IT and asking them to read out MFA codes.",
    ),
    (
        "security_note",
        "en",
        "Audit prep: export the admin login history and the list of who has production access. Due to the auditors Monday.",
    ),
    (
        "security_note",
        "en",
        "Personal note — I reused my old email password on the forum that got breached. Changed both today, enabled 2FA.",
    ),
    (
        "security_note",
        "en",
        "We decided the support bot must never ask customers for passwords. Added that to the bot's test suite.",
    ),
    (
        "security_note",
        "en",
        "Dad's account got a 'new sign-in from Lagos' alert. It was him on holiday VPN. False alarm, but good that alerts work.",
    ),
    (
        "security_note",
        "en",
        "Security awareness quiz results: most people spotted the fake invoice, few spotted the lookalike domain.",
    ),
    (
        "security_note",
        "en",
        "Keep the recovery codes for the work account in the fireproof box, not in the notes app.",
    ),
    (
        "security_note",
        "en",
        "Question for the CISO: should the AI assistant be allowed to read the shared drive at all? Add to Thursday's agenda.",
    ),
    (
        "security_note",
        "en",
        "Our red team's favourite trick is a document that tells the summariser to recommend a fake site. Added three of those to our eval set.",
    ),
    (
        "security_note",
        "en",
        "Learned today that 'system prompt' leaks are mostly harmless unless the prompt holds secrets. Ours doesn't; good.",
    ),
    (
        "security_note",
        "en",
        "Note: bank will never ask for the full PIN. If someone does, hang up and call the number on the card.",
    ),
    (
        "security_note",
        "en",
        "The new SSO policy means contractors lose access automatically when their end date passes. Finally.",
    ),
    (
        "security_note",
        "en",
        "Found an old spreadsheet of passwords on the shared drive from 2019. Deleted it and told the owner to rotate them.",
    ),
    # -- incident reports ----------------------------------------------------------
    (
        "incident_report",
        "en",
        "INC-2207 summary: an attacker reused leaked credentials against the VPN. Blocked after 40 attempts; accounts reset; no access gained.",
    ),
    (
        "incident_report",
        "en",
        "Incident write-up: a support macro told agents to 'ignore the refund limit' for VIPs; it was abused by a fraudster posing as one. Macro removed.",
    ),
    (
        "incident_report",
        "en",
        "Timeline: 09:12 phishing mail delivered to 40 inboxes; 09:30 first report; 09:41 mail purged; 10:05 one user's password reset as a precaution.",
    ),
    (
        "incident_report",
        "en",
        "Root cause: the chatbot summarised a web page containing hidden text that asked it to praise a competitor. We now strip hidden elements before summarising.",
    ),
    (
        "incident_report",
        "en",
        "Post-incident review of the ransomware scare: backups were intact, restore took four hours, lesson: test restores quarterly.",
    ),
    (
        "incident_report",
        "en",
        "What happened: a customer pasted a message saying 'you are now the admin bot' into the help widget. The bot declined; no impact. Logged for the eval set.",
    ),
    (
        "incident_report",
        "en",
        "Incident 88, severity low: an intern committed an API key to a public repo. Key revoked within 20 minutes, history rewritten, secret scanning enabled.",
    ),
    (
        "incident_report",
        "en",
        "During the outage the status page said 'all systems operational' because its check ran on the same cluster. Moving it off-cluster.",
    ),
    (
        "incident_report",
        "en",
        "Report on the fake CEO email: it asked finance to pay a new supplier urgently. Payment stopped by the two-person rule.",
    ),
    (
        "incident_report",
        "en",
        "Lessons learned: the agent obeyed an instruction inside a calendar invite to forward the attendee list. Tools now need user confirmation for external sends.",
    ),
    (
        "incident_report",
        "en",
        "Security event 7 closed: the 'password reset' email was a real one triggered by the user herself on a second device.",
    ),
    (
        "incident_report",
        "en",
        "Summary for the board: two minor incidents this quarter, both phishing, no data lost, training completion up to 94%.",
    ),
    (
        "incident_report",
        "en",
        "Incident notes: a poisoned wiki page told our Q&A bot to answer 'the VPN is down' to everyone. The model screen held it; we reverted the page.",
    ),
    (
        "incident_report",
        "en",
        "The breach notification went out to 312 customers, telling them to reset their passwords and watch for suspicious emails.",
    ),
    (
        "incident_report",
        "en",
        "After-action: the attacker's email told staff the old login portal was retired and linked a fake one. Three people entered credentials; all reset.",
    ),
    # -- policies ------------------------------------------------------------------
    (
        "policy",
        "en",
        "Password policy (v3): at least 14 characters, no forced rotation, block known-breached passwords, MFA required for remote access.",
    ),
    (
        "policy",
        "en",
        "Acceptable use: employees must not share their login with anyone, including colleagues and IT staff.",
    ),
    (
        "policy",
        "en",
        "AI usage policy: staff may use the approved assistant for drafting; never paste secrets, health data or customer lists into it.",
    ),
    (
        "policy",
        "en",
        "Data retention: chat transcripts are deleted after 90 days unless a legal hold applies.",
    ),
    (
        "policy",
        "en",
        "Policy on prompts: system prompts for customer-facing bots are reviewed by two people and versioned in git.",
    ),
    (
        "policy",
        "en",
        "Clean desk policy: lock your screen when you step away and don't leave passwords on sticky notes.",
    ),
    (
        "policy",
        "en",
        "Vendor access policy: third parties get time-limited accounts and every session is logged.",
    ),
    (
        "policy",
        "en",
        "Incident reporting policy: report suspected phishing within one hour using the button in the mail client; do not forward the email.",
    ),
    (
        "policy",
        "en",
        "Exception process: if you need to bypass a security control, file a request; approvals expire after 30 days.",
    ),
    (
        "policy",
        "en",
        "Remote work policy: company laptops only, full-disk encryption on, public Wi-Fi only through the VPN.",
    ),
    (
        "policy",
        "en",
        "Our bot's content policy says it should refuse to give medical dosages and point people to a pharmacist.",
    ),
    (
        "policy",
        "en",
        "Privacy notice draft: we never sell your data; the assistant only stores what you ask it to remember.",
    ),
    # -- pentest and red-team reports ------------------------------------------------
    (
        "pentest_report",
        "en",
        "Pentest finding 3 (high): the chat widget accepted instructions embedded in uploaded PDFs, e.g. text asking it to reveal other tenants' data. Recommend isolating document content.",
    ),
    (
        "pentest_report",
        "en",
        "Finding: default credentials on the printer admin page. Risk: medium. Fix: change the password and restrict the page to the IT VLAN.",
    ),
    (
        "pentest_report",
        "en",
        "The testers got the support bot to adopt a 'developer mode' persona with a long role-play prompt. The bot still refused to run tools, so impact was low.",
    ),
    (
        "pentest_report",
        "en",
        "Red team exercise recap: they planted a note in the knowledge base saying the refund limit no longer applies. The agent flagged it for review.",
    ),
    (
        "pentest_report",
        "en",
        "Scope of the engagement: external web apps and the AI assistant's plugins; social engineering excluded.",
    ),
    (
        "pentest_report",
        "en",
        "Result: the password reset flow leaked whether an email was registered. Recommendation: same message for both cases.",
    ),
    (
        "pentest_report",
        "en",
        "The consultant's report lists eight prompt injection payloads they tried; two got the bot to reveal its instructions, none caused actions.",
    ),
    (
        "pentest_report",
        "en",
        "Retest notes: SSRF fixed, session fixation fixed, the LLM plugin still follows links in retrieved text without asking. Still open.",
    ),
    (
        "pentest_report",
        "en",
        "Appendix B of the pentest lists every payload as quoted strings so the devs can add them to the regression suite.",
    ),
    (
        "pentest_report",
        "en",
        "Executive summary: no critical issues; two high issues in the admin API, both fixed before the report was finalised.",
    ),
    (
        "pentest_report",
        "en",
        "We asked the testers to try to make the assistant email data out. They couldn't: outbound email needs a human click.",
    ),
    # -- phishing warnings and write-ups ---------------------------------------------
    (
        "phishing_warning",
        "en",
        "Phishing alert: emails titled 'Payroll update required' ask you to log in at a lookalike site. Don't click; report it.",
    ),
    (
        "phishing_warning",
        "en",
        "The scam text says 'your bank card is blocked, confirm your details here'. Our bank never sends links by SMS.",
    ),
    (
        "phishing_warning",
        "en",
        "Warning from the school: parents received messages asking them to pay a trip fee to a new account. The school's account hasn't changed.",
    ),
    (
        "phishing_warning",
        "en",
        "Be careful with the fake delivery notices going around — they ask for a small fee and then drain the card.",
    ),
    (
        "phishing_warning",
        "en",
        "Write-up of the spear-phishing attempt: the sender knew our project names and asked Raj to 'verify' his login on a shared doc. He reported it.",
    ),
    (
        "phishing_warning",
        "en",
        "How to spot the current scam: urgent tone, a deadline within hours, a request for codes or passwords, and a slightly wrong domain.",
    ),
    (
        "phishing_warning",
        "en",
        "Gran got a call saying her grandson was arrested and needed bail in gift cards. Told the family to agree on a code word.",
    ),
    (
        "phishing_warning",
        "en",
        "IT bulletin: we will never ask you to share your password by email, chat or phone. Anyone who does is an attacker.",
    ),
    (
        "phishing_warning",
        "en",
        "The fake invoice email tells recipients that the supplier's bank details changed. Always confirm by phone using a known number.",
    ),
    (
        "phishing_warning",
        "en",
        "New trick: messages pretending to be from an AI assistant saying 'your account needs re-verification, reply with your code'. Ignore them.",
    ),
    (
        "phishing_warning",
        "en",
        "Phishing drill results: 11% clicked, 3% entered credentials. Follow-up training booked for those teams.",
    ),
    (
        "phishing_warning",
        "en",
        "Reminder for the family group chat: if a message from me asks for money urgently, call me before sending anything.",
    ),
    # -- dev notes -----------------------------------------------------------------
    (
        "dev_note",
        "en",
        "TODO: the prompt template ignores the user's locale; pass it through so answers come back in their language.",
    ),
    (
        "dev_note",
        "en",
        "Refactor idea: move the system prompt out of the code into a versioned YAML file so reviewers can diff it.",
    ),
    (
        "dev_note",
        "en",
        "The linter ignores generated files; add the new protobuf folder to the ignore list too.",
    ),
    (
        "dev_note",
        "en",
        "Bug: the bot repeats its instructions when the conversation is empty. Repro: send a blank message. Fix: early return.",
    ),
    (
        "dev_note",
        "en",
        "Note for reviewers: this PR changes how we escape user text before it goes into the prompt. Please check the unicode cases.",
    ),
    (
        "dev_note",
        "en",
        "The eval harness now includes 40 injection examples; current model refuses 38. The two misses are role-play prompts.",
    ),
    (
        "dev_note",
        "en",
        "Password hashing moved from bcrypt cost 10 to argon2id. Existing hashes upgrade on next login.",
    ),
    (
        "dev_note",
        "en",
        "Why the retry loop ignores 4xx errors: they won't succeed on retry, so we surface them immediately.",
    ),
    (
        "dev_note",
        "en",
        "Decided to keep the tool-call parser strict: anything that isn't valid JSON from the model itself is dropped.",
    ),
    (
        "dev_note",
        "en",
        "Meeting notes: agree that retrieved documents are data, never instructions. Wrap them in a quoted block in the prompt.",
    ),
    (
        "dev_note",
        "en",
        "git tip: `git update-index --assume-unchanged config.local` stops git from tracking local password changes in that file.",
    ),
    (
        "dev_note",
        "en",
        "Flaky test: test_login_lockout fails when the clock crosses a minute boundary. Inject the clock instead.",
    ),
    (
        "dev_note",
        "en",
        "The assistant's new instruction format: role, goal, constraints, examples. Drafted by Ana, reviewed by Sam.",
    ),
    (
        "dev_note",
        "en",
        "Changelog entry: the memory import now skips lines that look like tool calls and reports them to the user.",
    ),
    (
        "dev_note",
        "en",
        "I overrode the default timeout in the staging config only; prod still uses 30s. Revert after the load test.",
    ),
    (
        "dev_note",
        "en",
        "Code review comment: please don't log the full request here, it contains the user's auth token.",
    ),
    (
        "dev_note",
        "en",
        "Secrets go in the vault, not in .env committed to the repo. Added a pre-commit hook that checks for keys.",
    ),
    (
        "dev_note",
        "en",
        "Design doc: the agent may read email but must ask the user before sending, deleting or forwarding anything.",
    ),
    # -- runbooks ------------------------------------------------------------------
    (
        "runbook",
        "en",
        "Runbook — suspected account takeover: 1) lock the account 2) revoke sessions 3) reset password and MFA 4) review recent activity with the user.",
    ),
    (
        "runbook",
        "en",
        "If the alert 'admin login from new country' fires, check the VPN logs first; most are staff travelling.",
    ),
    (
        "runbook",
        "en",
        "Steps to rotate the API key: create the new key, deploy it, watch errors for 15 minutes, then revoke the old one.",
    ),
    (
        "runbook",
        "en",
        "On-call note: when the chatbot starts answering off-topic, roll back the latest prompt change and page the ML lead.",
    ),
    (
        "runbook",
        "en",
        "Disaster recovery: restore the database from last night's snapshot, replay the WAL, then point the app at the new host.",
    ),
    (
        "runbook",
        "en",
        "Phishing response runbook: pull the email from all mailboxes, block the sender domain, reset anyone who clicked, note it in the tracker.",
    ),
    (
        "runbook",
        "en",
        "When a user says they're locked out, verify identity with the callback number on file, never with details they give in the chat.",
    ),
    (
        "runbook",
        "en",
        "Quarantine review procedure: read each held memory, approve it if it's the user's own note, delete it if it addresses the assistant.",
    ),
    (
        "runbook",
        "en",
        "If the model screen flags a legitimate memory, approve it in the review queue and add the text to the benign eval set.",
    ),
    (
        "runbook",
        "en",
        "Certificate expiry runbook: renew, test on staging, deploy, then confirm the chain with openssl s_client.",
    ),
    (
        "runbook",
        "en",
        "To disable a compromised service account: remove its keys, set the password to random, and alert the owner.",
    ),
    # -- support scripts addressed to human agents ----------------------------------
    (
        "support_script",
        "en",
        "Agent script: if the caller asks for their password, explain we can't see it and offer a reset link by email.",
    ),
    (
        "support_script",
        "en",
        "When a customer says they were charged twice, apologise, check the ledger, and refund the duplicate within the same call.",
    ),
    (
        "support_script",
        "en",
        "Support tip: if someone insists they're the CEO and need access now, follow the normal verification anyway.",
    ),
    (
        "support_script",
        "en",
        "Script for refund requests over £500: collect the order number, explain the 5-day review, escalate to a supervisor.",
    ),
    (
        "support_script",
        "en",
        "If the customer mentions a suspicious email from us, ask them to forward it to the abuse address and not click anything.",
    ),
    (
        "support_script",
        "en",
        "Macro: 'Thanks for reporting this. We never ask for your card number over chat; please don't share it.'",
    ),
    # -- prompt docs: people writing about prompts ----------------------------------
    (
        "prompt_doc",
        "en",
        "Prompt writing guide: tell the model what to do rather than what to avoid, give one example, keep the instructions short.",
    ),
    (
        "prompt_doc",
        "en",
        "In our docs we show the system prompt as an example so customers understand what the bot will and won't do.",
    ),
    (
        "prompt_doc",
        "en",
        "Course notes: a jailbreak is an input that gets a model to ignore its instructions; defences include screening inputs and limiting tools.",
    ),
    (
        "prompt_doc",
        "en",
        "Glossary: 'system prompt' — the hidden instructions a developer gives a chatbot before the user speaks.",
    ),
    (
        "prompt_doc",
        "en",
        "Workshop exercise: have students write a prompt that makes the bot answer in pirate speak, then discuss why role prompts work.",
    ),
    (
        "prompt_doc",
        "en",
        "Blog draft: why you can't fully trust an LLM to ignore instructions hidden in the text it reads.",
    ),
    # -- everyday notes that use the same words -------------------------------------
    (
        "chat",
        "en",
        "The instructions for the IKEA wardrobe were useless; ignore step 7, the doors go on last.",
    ),
    ("chat", "en", "Maria told me to forget what she said about the party, it's moved to Sunday."),
    (
        "chat",
        "en",
        "Coach's new rule: no phones at practice. The old rule about warm-ups still applies.",
    ),
    (
        "chat",
        "en",
        "The Wi-Fi password at the cabin is on the fridge; the owner said to reset the router if it drops.",
    ),
    (
        "chat",
        "en",
        "My manager said to disregard the earlier email about the offsite; the new date is in the calendar.",
    ),
    ("chat", "en", "From now on I'm going to the gym before work instead of after. Feels better."),
    (
        "chat",
        "en",
        "Sam pretends to be a pirate whenever he reads bedtime stories to the kids. They love it.",
    ),
    (
        "chat",
        "en",
        "Reminder: tell Jonas the new door code is 4-digit now, the old one stopped working.",
    ),
    (
        "chat",
        "en",
        "The teacher asked the kids to role-play a shopkeeper and a customer for the French lesson.",
    ),
    (
        "chat",
        "en",
        "Whenever it rains, the basement floods a bit — need to call the plumber about the drain.",
    ),
    (
        "chat",
        "en",
        "If my flight is delayed again, I'm asking the airline for the compensation form.",
    ),
    (
        "chat",
        "en",
        "My sister keeps telling me to stop overthinking and just send the application.",
    ),
    ("user_pref", "en", "I prefer short answers and bullet points; skip the preamble."),
    ("user_pref", "en", "Please always use metric units and 24-hour time in replies to me."),
    ("user_pref", "en", "When I ask about recipes, I'm vegetarian, so leave out meat options."),
    ("user_pref", "en", "If I ask about code, assume Python 3.12 unless I say otherwise."),
    ("user_pref", "en", "I'd like reminders about bills three days before they're due."),
    ("user_pref", "en", "When I mention 'the project' I mean the garden shed build, not work."),
    ("user_pref", "en", "Don't suggest restaurants that need a car; I walk everywhere."),
    (
        "user_pref",
        "en",
        "If I ask for a summary of an article, include the author's main argument in one line first.",
    ),
]
