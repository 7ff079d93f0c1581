// The page's words in English and Hindi: every label, button and message the page writes itself. An element
// with data-i18n="key" gets its text from here (data-i18n-placeholder, -aria, -title: those attributes); the script
// calls t("key", {name: value}). The server's own error details stay as it wrote them, after the page's words.
"use strict";

export const LANGUAGES = ["en", "hi"];

const EN = {
  "app.subtitle": "complaint triage", "app.connecting": "connecting…", "app.language": "language",
  "app.officer": "officer", "app.yourName": "your name", "app.logout": "log out",
  "app.health": "model {model} · {n} complaints in the log", "app.unreachable": "service unreachable: {error}",
  "app.zone": "times in {zone}; the date filters take whole days there and read the incident date",
  "role.viewer": "viewer", "role.officer": "officer", "role.admin": "admin", "role.all": "all districts",
  "alerts.title": "Outbreak alerts", "alerts.open": "open its {n} complaints", "alerts.open1": "open its complaint",
  "alerts.ack": "acknowledge", "alerts.acked": "acknowledged",
  "queue.title": "Triage queue", "queue.export": "export CSV (Excel)", "queue.filters": "Filters",
  "queue.orderTriage": "the most severe first: a child's death, a hospital admission, a doctor's visit, children unwell; then the most urgent, then the most children; then those needing review; then newest",
  "queue.orderReview": "those needing review first, then the least certain: each correction teaches the model the most",
  "queue.prev": "← previous", "queue.next": "next →", "queue.empty": "no complaints match",
  "queue.range": "{a}–{b} of {n}", "queue.nFilters": "({n} on)",
  "f.label": "label", "f.allLabels": "all labels", "f.urgency": "urgency", "f.anyUrgency": "any urgency",
  "f.status": "status", "f.anyStatus": "any status", "f.review": "review", "f.flaggedOrNot": "flagged or not",
  "f.needsReview": "needs review", "f.notFlagged": "not flagged", "f.school": "school", "f.district": "district",
  "f.block": "block", "f.anyPart": "any part of the name", "f.from": "incident from", "f.to": "incident to",
  "f.reviewQueue": "review queue (least certain first)", "f.unassigned": "unassigned (no district)",
  "card.open": "open", "card.correct": "correct labels",
  "card.children": "{n} children", "card.allChildren": "all the children",
  "level.death": "a child died", "level.hospital": "admitted to hospital", "level.clinic": "seen by a doctor",
  "level.unwell": "children unwell", "card.noSchool": "no school given", "card.noDistrict": "no district",
  "card.received": "received {when}", "card.incident": "incident {when}", "card.by": "by {channel}",
  "card.assigned": "assigned to {name}", "card.correctedBy": "corrected by {name}:", "card.model": "model:",
  "card.needsReview": "needs review", "card.officer": "an officer",
  "move.start": "start work", "move.resolve": "resolve", "move.back": "back to new", "move.reopen": "reopen",
  "urgency.high": "high", "urgency.medium": "medium", "urgency.low": "low", "urgency.badge": "{u} urgency",
  "status.new": "new", "status.in_progress": "in progress", "status.resolved": "resolved",
  "edit.assign": "assign to", "edit.notes": "notes", "edit.save": "save", "edit.district": "put in district",
  "edit.block": "block", "edit.saved": "Saved: #{id} {what}.", "edit.labelsNow": "labels now {labels}",
  "edit.changed": "changes kept", "edit.nothing": "nothing changed",
  "one.title": "Add one complaint", "one.complaint": "Complaint",
  "one.placeholder": "e.g. Children vomited after eating the khichdi; a lizard was found in the pot.",
  "one.school": "School", "one.district": "District", "one.block": "Block", "one.date": "Incident date",
  "one.channel": "Channel", "one.notGiven": "not given", "one.save": "save to the log", "one.classify": "Classify",
  "one.saved": "saved as #{id}", "one.notSaved": "not saved", "one.openSaved": "open", "one.attention": "attention view ↗",
  "one.viewerNote": "Your role ({role}) may classify but not save.",
  "one.noDistrict": "Saved without a district: district officers do not see it. It waits under “unassigned” until a state officer puts it in its district.",
  "one.districtDefault": "Saved in {district}, your district.",
  "paste.title": "Paste many complaints",
  "paste.help": "One complaint per line. After the text, optionally: | school | incident date (27/05/2025 or 2025-05-27) | block | district — or the same separated by tabs, as pasted from a spreadsheet.",
  "paste.district": "District (all lines)", "paste.block": "Block (all lines)", "paste.date": "Incident date (all lines)",
  "paste.button": "Classify and save all", "paste.empty": "paste at least one complaint, one per line",
  "paste.done": "{saved} of {lines} lines saved", "paste.doneAll": "{n} complaints classified and saved",
  "paste.refusedAll": "Nothing was saved: {n} lines cannot be saved. Correct them, or choose “save the others”.",
  "partial.legend": "If some lines cannot be saved", "partial.others": "save the others and list the lines refused",
  "partial.none": "save nothing until every line is right",
  "t.line": "line", "t.result": "result", "t.text": "text", "t.urgency": "urgency", "t.labels": "labels",
  "t.school": "school", "t.savedAs": "saved #{id}", "t.classified": "classified", "t.refused": "refused: {why}",
  "upload.title": "Upload a CSV file",
  "upload.help": "UTF-8 (Excel: “CSV UTF-8”), a text column and optionally school, udise, district, block, incident_date, channel, phone; other columns are kept with the complaint and come back in the exports; up to 2,000 complaints.",
  "upload.button": "Classify file", "upload.download": "download results (CSV, opens in Excel)",
  "upload.count": "{n} complaints classified", "upload.countSaved": "{n} complaints classified and saved",
  "upload.refused": "{n} lines refused (listed below)",
  "upload.leftOut": "A file mealwatch exported: its own columns were not kept ({columns}); the complaints were classified afresh.",
  "upload.noDistrict": "{n} saved without a district: they wait under “unassigned”.",
  "chart.title": "Complaints per label, last 30 days", "chart.aria": "complaints per label per day",
  "why.title": "Why: each word's share of the decision", "why.for": "for",
  "why.toward": "pushes toward the label", "why.against": "pushes against it",
  "why.parts": "The decision {label} {p}% is the encoder ({enc}%) and the word patterns ({ng}%) weighted {we}/{wn}; each word's colour is its share of both — tap or hover a word for each part.",
  "why.encoderOnly": "The decision {label} {p}%: each word's share of it (integrated gradients of the encoder).",
  "why.sum": "Together the words move it by {sum} points from {base}% for a text with no words; {left} left over.",
  "why.strongest": "Pushing hardest toward it:", "why.word": "{share} points (encoder {enc}, word patterns {ng})",
  "why.wordEnc": "{share} points",
  "why.unreadable": "The model cannot read most of these words (another script, or spellings it does not know): its labels are a guess, so no colours are shown. Read the complaint yourself and set its labels.",
  "why.approximate": "These shares miss the decision by {gap} points: read them as rough.",
  "why.view_not_shown": "The model also read this text in Devanagari; that reading's share is not among these colours.",
  "why.loading": "working out which words decided it…", "why.noSignal": "no word moved this label measurably",
  "why.cut": "The text is longer than the model reads: only its beginning counted.",
  "why.other": "The model that answers now is {now}; this complaint was saved by {then}: the why explains today's model.",
  "detail.close": "close ✕", "detail.title": "Complaint #{id}", "detail.record": "Record", "detail.extra": "Other fields",
  "detail.probabilities": "How sure the model was", "detail.history": "History", "detail.noHistory": "no changes yet",
  "detail.change": "{field}: {old} → {new}", "detail.byAt": "{by}, {at}", "detail.someone": "someone",
  "detail.alertTitle": "Alert #{id}: its complaints", "detail.text": "Complaint",
  "field.school": "school", "field.udise": "UDISE code", "field.district": "district", "field.block": "block",
  "field.incident_at": "incident", "field.channel": "channel", "field.language": "language", "field.reporter_phone": "reporter's phone",
  "field.created_at": "received", "field.status": "status", "field.labels": "labels", "field.assignee": "assigned to",
  "field.notes": "notes", "field.model_version": "model", "field.corrected_labels": "corrected labels",
  "review.no_label": "The model is not sure of any label — “{label}” is only its best guess. Read it and set the right labels.",
  "review.unreadable": "The model cannot read most of these words (another script or spelling). Read it yourself and set the labels.",
  "review.close_call": "Borderline: the model cannot tell whether it is “{label}”. Please check.",
  "review.language_unchecked": "Written in {language}: this model was never checked on it. Read it yourself and set the labels.",
  "review.language_weak": "Written in {language}, where this model often errs. Please check.",
  "review.other": "Please check: {reason}",
  "err.lead": "Could not do it: {error}", "err.lead422": "Please correct this: {error}",
  "err.lead403": "Not allowed: {error}", "err.lead503": "The service is busy — try again in a minute: {error}",
  "err.login": "Your session has ended: log in again.", "err.network": "The service did not answer: {error}",
  "err.line": "line {line}: {error}",
  "login.title": "Log in", "login.name": "Name", "login.password": "Password", "login.button": "log in",
  "login.noAccount": "No account? An admin adds one with mealwatch users add.", "login.wait": " (wait {s} s)",
  "login.wrong": "wrong name or password",
};

const HI = {
  "app.subtitle": "शिकायत छँटाई", "app.connecting": "जुड़ रहा है…", "app.language": "भाषा",
  "app.officer": "अधिकारी", "app.yourName": "आपका नाम", "app.logout": "लॉग आउट",
  "app.health": "मॉडल {model} · लॉग में {n} शिकायतें", "app.unreachable": "सेवा से संपर्क नहीं हो पा रहा: {error}",
  "app.zone": "समय {zone} में; तारीख़ के फ़िल्टर वहाँ के पूरे दिन लेते हैं और घटना की तारीख़ पढ़ते हैं",
  "role.viewer": "दर्शक", "role.officer": "अधिकारी", "role.admin": "प्रशासक", "role.all": "सभी ज़िले",
  "alerts.title": "प्रकोप चेतावनियाँ", "alerts.open": "इसकी {n} शिकायतें खोलें", "alerts.open1": "इसकी शिकायत खोलें",
  "alerts.ack": "देख लिया", "alerts.acked": "देख लिया गया",
  "alert.death_or_hospital": "{place} में मृत्यु या अस्पताल में भर्ती की सूचना",
  "alert.school_cluster": "{place} में बीमारी या खाने में बाहरी चीज़ की {n} शिकायतें, थोड़े समय में",
  "alert.block_spread": "प्रखंड {place} के कई विद्यालयों में बीमारी (साझा रसोई या आपूर्तिकर्ता?)",
  "alert.unnamed": "बिना नाम का विद्यालय",
  "queue.title": "छँटाई सूची", "queue.export": "CSV निकालें (Excel)", "queue.filters": "फ़िल्टर",
  "queue.orderTriage": "सबसे गंभीर पहले: बच्चे की मृत्यु, अस्पताल में भर्ती, डॉक्टर को दिखाया, बच्चे बीमार; फिर सबसे ज़रूरी, फिर सबसे अधिक बच्चे; फिर जिन्हें जाँच चाहिए; फिर सबसे नई",
  "queue.orderReview": "जिन्हें जाँच चाहिए वे पहले, फिर जिनमें मॉडल सबसे कम निश्चित है: हर सुधार से मॉडल सबसे ज़्यादा सीखता है",
  "queue.prev": "← पिछला", "queue.next": "अगला →", "queue.empty": "कोई शिकायत नहीं मिली",
  "queue.range": "{n} में से {a}–{b}", "queue.nFilters": "({n} चालू)",
  "f.label": "श्रेणी", "f.allLabels": "सभी श्रेणियाँ", "f.urgency": "तात्कालिकता", "f.anyUrgency": "कोई भी तात्कालिकता",
  "f.status": "स्थिति", "f.anyStatus": "कोई भी स्थिति", "f.review": "जाँच", "f.flaggedOrNot": "चिह्नित या नहीं",
  "f.needsReview": "जाँच चाहिए", "f.notFlagged": "चिह्नित नहीं", "f.school": "विद्यालय", "f.district": "ज़िला",
  "f.block": "प्रखंड", "f.anyPart": "नाम का कोई भी हिस्सा", "f.from": "घटना की तारीख़ से", "f.to": "घटना की तारीख़ तक",
  "f.reviewQueue": "जाँच सूची (सबसे कम निश्चित पहले)", "f.unassigned": "बिना ज़िले की (असौंपी)",
  "card.open": "खोलें", "card.correct": "श्रेणी सुधारें",
  "card.children": "{n} बच्चे", "card.allChildren": "सभी बच्चे",
  "level.death": "बच्चे की मृत्यु", "level.hospital": "अस्पताल में भर्ती", "level.clinic": "डॉक्टर ने देखा",
  "level.unwell": "बच्चे बीमार", "card.noSchool": "विद्यालय नहीं बताया", "card.noDistrict": "ज़िला नहीं",
  "card.received": "प्राप्त {when}", "card.incident": "घटना {when}", "card.by": "{channel} से",
  "card.assigned": "{name} को सौंपी गई", "card.correctedBy": "{name} ने सुधारा:", "card.model": "मॉडल:",
  "card.needsReview": "जाँच चाहिए", "card.officer": "एक अधिकारी",
  "move.start": "काम शुरू करें", "move.resolve": "निपटाएँ", "move.back": "वापस नई में", "move.reopen": "फिर खोलें",
  "urgency.high": "उच्च", "urgency.medium": "मध्यम", "urgency.low": "निम्न", "urgency.badge": "{u} तात्कालिकता",
  "status.new": "नई", "status.in_progress": "कार्य जारी", "status.resolved": "निपटाई गई",
  "edit.assign": "किसे सौंपें", "edit.notes": "टिप्पणी", "edit.save": "सहेजें", "edit.district": "ज़िले में डालें",
  "edit.block": "प्रखंड", "edit.saved": "सहेजा गया: #{id} {what}।", "edit.labelsNow": "अब श्रेणियाँ {labels}",
  "edit.changed": "बदलाव रखे गए", "edit.nothing": "कुछ नहीं बदला",
  "one.title": "एक शिकायत जोड़ें", "one.complaint": "शिकायत",
  "one.placeholder": "जैसे: खिचड़ी खाने के बाद बच्चों को उल्टी हुई; बर्तन में छिपकली मिली।",
  "one.school": "विद्यालय", "one.district": "ज़िला", "one.block": "प्रखंड", "one.date": "घटना की तारीख़",
  "one.channel": "माध्यम", "one.notGiven": "नहीं बताया", "one.save": "लॉग में सहेजें", "one.classify": "जाँचें",
  "one.saved": "#{id} के रूप में सहेजी गई", "one.notSaved": "सहेजी नहीं गई", "one.openSaved": "खोलें",
  "one.attention": "ध्यान दृश्य ↗", "one.viewerNote": "आपकी भूमिका ({role}) में शिकायत जाँच सकते हैं, सहेज नहीं सकते।",
  "one.noDistrict": "ज़िले के बिना सहेजी गई: ज़िला अधिकारी इसे नहीं देखते। यह “असौंपी” में तब तक रहेगी जब तक राज्य अधिकारी इसे इसके ज़िले में न डालें।",
  "one.districtDefault": "आपके ज़िले {district} में सहेजी गई।",
  "paste.title": "कई शिकायतें चिपकाएँ",
  "paste.help": "हर पंक्ति में एक शिकायत। शिकायत के बाद चाहें तो: | विद्यालय | घटना की तारीख़ (27/05/2025 या 2025-05-27) | प्रखंड | ज़िला — या स्प्रेडशीट से चिपकाने पर टैब से अलग।",
  "paste.district": "ज़िला (सभी पंक्तियाँ)", "paste.block": "प्रखंड (सभी पंक्तियाँ)", "paste.date": "घटना की तारीख़ (सभी पंक्तियाँ)",
  "paste.button": "सब जाँचें और सहेजें", "paste.empty": "कम से कम एक शिकायत चिपकाएँ, हर पंक्ति में एक",
  "paste.done": "{lines} में से {saved} पंक्तियाँ सहेजी गईं", "paste.doneAll": "{n} शिकायतें जाँची और सहेजी गईं",
  "paste.refusedAll": "कुछ भी नहीं सहेजा गया: {n} पंक्तियाँ सहेजी नहीं जा सकतीं। उन्हें ठीक करें, या “बाकी सहेजें” चुनें।",
  "partial.legend": "अगर कुछ पंक्तियाँ सहेजी न जा सकें", "partial.others": "बाकी सहेजें और रोकी गई पंक्तियाँ दिखाएँ",
  "partial.none": "जब तक हर पंक्ति ठीक न हो, कुछ भी न सहेजें",
  "t.line": "पंक्ति", "t.result": "परिणाम", "t.text": "शिकायत", "t.urgency": "तात्कालिकता", "t.labels": "श्रेणियाँ",
  "t.school": "विद्यालय", "t.savedAs": "#{id} सहेजी गई", "t.classified": "जाँची गई", "t.refused": "रोकी गई: {why}",
  "upload.title": "CSV फ़ाइल अपलोड करें",
  "upload.help": "UTF-8 (Excel में “CSV UTF-8”), एक text कॉलम और चाहें तो school, udise, district, block, incident_date, channel, phone; बाकी कॉलम शिकायत के साथ रखे जाते हैं और निर्यात में वापस आते हैं; अधिकतम 2,000 शिकायतें।",
  "upload.button": "फ़ाइल जाँचें", "upload.download": "परिणाम डाउनलोड करें (CSV, Excel में खुलती है)",
  "upload.count": "{n} शिकायतें जाँची गईं", "upload.countSaved": "{n} शिकायतें जाँची और सहेजी गईं",
  "upload.refused": "{n} पंक्तियाँ रोकी गईं (नीचे सूची)",
  "upload.leftOut": "यह mealwatch से निकाली गई फ़ाइल है: उसके अपने कॉलम नहीं रखे गए ({columns}); शिकायतें फिर से जाँची गईं।",
  "upload.noDistrict": "{n} ज़िले के बिना सहेजी गईं: वे “असौंपी” में हैं।",
  "chart.title": "पिछले 30 दिनों में हर श्रेणी की शिकायतें", "chart.aria": "हर दिन हर श्रेणी की शिकायतें",
  "why.title": "क्यों: निर्णय में हर शब्द का हिस्सा", "why.for": "श्रेणी",
  "why.toward": "श्रेणी की ओर ले जाता है", "why.against": "उसके विरुद्ध",
  "why.parts": "निर्णय {label} {p}% एनकोडर ({enc}%) और शब्द-पैटर्न ({ng}%) का {we}/{wn} भार से मेल है; हर शब्द का रंग दोनों में उसका हिस्सा है — हर भाग देखने के लिए शब्द पर टैप करें या रुकें।",
  "why.encoderOnly": "निर्णय {label} {p}%: उसमें हर शब्द का हिस्सा (एनकोडर के integrated gradients)।",
  "why.sum": "सब शब्द मिलकर इसे बिना शब्दों वाले पाठ के {base}% से {sum} अंक खिसकाते हैं; {left} शेष।",
  "why.strongest": "सबसे ज़्यादा इस ओर ले जाने वाले:", "why.word": "{share} अंक (एनकोडर {enc}, शब्द-पैटर्न {ng})",
  "why.wordEnc": "{share} अंक",
  "why.unreadable": "मॉडल इनमें से अधिकतर शब्द नहीं पढ़ पाता (दूसरी लिपि, या अनजानी वर्तनी): इसकी श्रेणियाँ अनुमान भर हैं, इसलिए रंग नहीं दिखाए गए। शिकायत स्वयं पढ़कर श्रेणी चुनें।",
  "why.approximate": "ये हिस्से निर्णय से {gap} अंक दूर हैं: इन्हें मोटा अनुमान मानें।",
  "why.view_not_shown": "मॉडल ने यह शिकायत देवनागरी में भी पढ़ी; उस पढ़ाई का हिस्सा इन रंगों में नहीं है।",
  "why.loading": "पता लगा रहे हैं किन शब्दों से निर्णय हुआ…", "why.noSignal": "किसी शब्द ने इस श्रेणी को स्पष्ट रूप से नहीं बदला",
  "why.cut": "शिकायत मॉडल की पढ़ने की सीमा से लंबी है: केवल शुरुआत गिनी गई।",
  "why.other": "अभी उत्तर देने वाला मॉडल {now} है; यह शिकायत {then} ने सहेजी थी: यह कारण आज के मॉडल का है।",
  "detail.close": "बंद करें ✕", "detail.title": "शिकायत #{id}", "detail.record": "विवरण", "detail.extra": "अन्य जानकारी",
  "detail.probabilities": "मॉडल कितना निश्चित था", "detail.history": "इतिहास", "detail.noHistory": "अभी कोई बदलाव नहीं",
  "detail.change": "{field}: {old} → {new}", "detail.byAt": "{by}, {at}", "detail.someone": "कोई",
  "detail.alertTitle": "चेतावनी #{id}: इसकी शिकायतें", "detail.text": "शिकायत",
  "field.school": "विद्यालय", "field.udise": "UDISE कोड", "field.district": "ज़िला", "field.block": "प्रखंड",
  "field.incident_at": "घटना", "field.channel": "माध्यम", "field.language": "भाषा", "field.reporter_phone": "शिकायतकर्ता का फ़ोन",
  "field.created_at": "प्राप्त", "field.status": "स्थिति", "field.labels": "श्रेणियाँ", "field.assignee": "किसे सौंपी",
  "field.notes": "टिप्पणी", "field.model_version": "मॉडल", "field.corrected_labels": "सुधारी गई श्रेणियाँ",
  "review.no_label": "मॉडल किसी भी श्रेणी को लेकर आश्वस्त नहीं है — “{label}” केवल उसका सबसे अच्छा अनुमान है। शिकायत पढ़कर सही श्रेणी चुनें।",
  "review.unreadable": "मॉडल इस शिकायत के अधिकतर शब्द नहीं पढ़ पाता (दूसरी लिपि या वर्तनी)। स्वयं पढ़कर श्रेणी चुनें।",
  "review.close_call": "सीमा पर: मॉडल तय नहीं कर पा रहा कि यह “{label}” है या नहीं। कृपया जाँचें।",
  "review.language_unchecked": "{language} में लिखी गई: इस मॉडल को इस भाषा पर कभी जाँचा नहीं गया। स्वयं पढ़कर श्रेणी चुनें।",
  "review.language_weak": "{language} में लिखी गई, जिसमें यह मॉडल अक्सर गलती करता है। कृपया जाँचें।",
  "review.other": "कृपया जाँचें: {reason}",
  "err.lead": "यह नहीं हो सका: {error}", "err.lead422": "कृपया यह ठीक करें: {error}",
  "err.lead403": "अनुमति नहीं: {error}", "err.lead503": "सेवा व्यस्त है — एक मिनट बाद फिर कोशिश करें: {error}",
  "err.login": "आपका सत्र समाप्त हो गया: फिर से लॉग इन करें।", "err.network": "सेवा ने उत्तर नहीं दिया: {error}",
  "err.line": "पंक्ति {line}: {error}",
  "err.date": "घटना की तारीख़ “{value}” पढ़ी नहीं जा सकी: 27/05/2025 या 2025-05-27 की तरह लिखें",
  "err.scope": "आप केवल {mine} की शिकायतें सहेज सकते हैं, {other} की नहीं",
  "err.channel": "माध्यम “{value}” मान्य नहीं: फ़ोन, एसएमएस, व्हाट्सऐप, पत्र, वेब या दौरा चुनें",
  "err.phone": "फ़ोन नंबर “{value}” मान्य नहीं: 7 से 15 अंक लिखें",
  "err.empty": "शिकायत खाली है: शिकायत के शब्द लिखें",
  "err.noDistrict": "ज़िला नहीं बताया: अपना ज़िला लिखें ({mine})",
  "login.title": "लॉग इन", "login.name": "नाम", "login.password": "पासवर्ड", "login.button": "लॉग इन करें",
  "login.noAccount": "खाता नहीं है? प्रशासक mealwatch users add से खाता बनाते हैं।", "login.wait": " ({s} सेकंड रुकें)",
  "login.wrong": "नाम या पासवर्ड गलत है",
};

//: the complaint labels and channels as an officer reads them
const LABEL_NAMES = {
  en: { foreign_object: "foreign object", spoiled_food: "spoiled food", illness: "illness",
    insufficient_quantity: "too little food", menu_not_followed: "menu not followed", poor_hygiene: "poor hygiene",
    meal_not_served: "meal not served", poor_taste_or_cooking: "poor taste or cooking",
    staff_misconduct: "staff misconduct", other: "other" },
  hi: { foreign_object: "खाने में बाहरी चीज़", spoiled_food: "खराब या बासी खाना", illness: "बच्चे बीमार",
    insufficient_quantity: "कम खाना", menu_not_followed: "मेन्यू का पालन नहीं", poor_hygiene: "गंदगी",
    meal_not_served: "भोजन नहीं परोसा गया", poor_taste_or_cooking: "खराब स्वाद या पकाना",
    staff_misconduct: "कर्मचारी का दुर्व्यवहार", other: "अन्य" },
};
const CHANNEL_NAMES = {
  en: { phone: "phone", sms: "SMS", whatsapp: "WhatsApp", letter: "letter", web: "web", visit: "visit" },
  hi: { phone: "फ़ोन", sms: "एसएमएस", whatsapp: "व्हाट्सऐप", letter: "पत्र", web: "वेब", visit: "दौरा" },
};
//: the languages a complaint may be written in (mealwatch.languages), by their English names as reasons name them
const LANGUAGE_NAMES = {
  en: {},
  hi: { English: "अंग्रेज़ी", Hindi: "हिन्दी", Marathi: "मराठी", Bengali: "बांग्ला", Tamil: "तमिल", Telugu: "तेलुगु",
    Kannada: "कन्नड़", Malayalam: "मलयालम", Gujarati: "गुजराती", Punjabi: "पंजाबी", Odia: "ओड़िया", Urdu: "उर्दू" },
};
//: each complaint language's ISO 639-1 code -> its English name (as above) and its own name
const COMPLAINT_LANGUAGES = { en: ["English", "English"], hi: ["Hindi", "हिन्दी"], mr: ["Marathi", "मराठी"],
  bn: ["Bengali", "বাংলা"], ta: ["Tamil", "தமிழ்"], te: ["Telugu", "తెలుగు"], kn: ["Kannada", "ಕನ್ನಡ"],
  ml: ["Malayalam", "മലയാളം"], gu: ["Gujarati", "ગુજરાતી"], pa: ["Punjabi", "ਪੰਜਾਬੀ"], or: ["Odia", "ଓଡ଼ିଆ"],
  ur: ["Urdu", "اردو"] };
export const TEXTS = { en: EN, hi: HI };

let current = "en";

export function language() { return current; }

export function setLanguage(lang) {
  current = LANGUAGES.includes(lang) ? lang : "en";
  document.documentElement.lang = current;
}

// the text of ``key`` in the current language (English when missing), {names} filled from ``params``
export function t(key, params = {}) {
  const text = TEXTS[current][key] ?? EN[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

export function labelName(label) { return LABEL_NAMES[current][label] ?? label.replace(/_/g, " "); }
export function channelName(channel) { return CHANNEL_NAMES[current][channel] ?? channel; }
// a complaint's language (mealwatch.languages code) in its own script, and in the page's language beside it
export function complaintLanguage(code) {
  const known = COMPLAINT_LANGUAGES[code];
  if (!known) return "";
  const [english, own] = known;
  const here = LANGUAGE_NAMES[current][english] ?? english;
  return own === here ? own : `${own} (${here})`;
}

// every element below ``root`` with data-i18n (text), data-i18n-placeholder, -aria or -title gets its words
export function applyTexts(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of root.querySelectorAll("[data-i18n-aria]")) node.setAttribute("aria-label", t(node.dataset.i18nAria));
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
}

// the server's most common refusals of a line in the page's language (English: as the server wrote them)
export function plainError(message) {
  const text = String(message);
  if (current === "en") return text;
  let m = /incident_date must be a day[^]*?not '([^']*)'/.exec(text);
  if (m) return t("err.date", { value: m[1] });
  m = /you may save complaints of (.+?) only, not of '([^']*)'/.exec(text);
  if (m) return t("err.scope", { mine: m[1], other: m[2] });
  m = /channel must be one of [^]*?, not '([^']*)'/.exec(text);
  if (m) return t("err.channel", { value: m[1] });
  m = /reporter_phone must be a phone number[^]*?not '([^']*)'/.exec(text);
  if (m) return t("err.phone", { value: m[1] });
  if (/the text is empty/.test(text)) return t("err.empty");
  m = /field 'district' is missing: name the district, one of (.+)$/.exec(text);
  if (m) return t("err.noDistrict", { mine: m[1] });
  return text;
}

// review reasons as mealwatch.review writes them, in plain words: (kind, label) read from the stored sentence
export function plainReason(reason) {
  let m = /^no label reached its threshold \(most probable: (\w+)/.exec(reason);
  if (m) return t("review.no_label", { label: labelName(m[1]) });
  if (/unreadable to this model's vocabulary/.test(reason)) return t("review.unreadable");
  m = /^close call: (\w+) /.exec(reason);
  if (m) return t("review.close_call", { label: labelName(m[1]) });
  m = /^written in (.+?), (a language this model was not checked on|where this model is less reliable)/.exec(reason);
  if (m) {
    const name = LANGUAGE_NAMES[current][m[1]] ?? m[1];
    return t(m[2].startsWith("a language") ? "review.language_unchecked" : "review.language_weak", { language: name });
  }
  return t("review.other", { reason });
}
