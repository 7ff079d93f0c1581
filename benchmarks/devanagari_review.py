"""Twelve short Devanagari complaints: each must get its right labels or come back needs_review.

    python benchmarks/devanagari_review.py [--model RUN_FOLDER]

The texts are the kind the issue's probe used (children vomiting after the meal, a lizard in the
khichdi, no dal for a week ...), written for this check and not in the dataset. For each the script
prints the predicted labels, their probabilities, the review flag and one of: right, needs_review,
or CONFIDENTLY WRONG (wrong labels without a flag: the outcome that must not happen).
"""

from __future__ import annotations

import argparse
import sys

CASES: list[tuple[str, set[str]]] = [
    ("आज खाने में कीड़े थे", {"foreign_object"}),
    ("बच्चों को खाना खाने के बाद उल्टी और दस्त हो रहे हैं", {"illness"}),
    ("खिचड़ी में छिपकली गिरी थी, छह बच्चों को उल्टी हुई और उन्हें अस्पताल ले गए", {"foreign_object", "illness"}),
    ("दाल बासी थी और उसमें से बदबू आ रही थी", {"spoiled_food"}),
    ("एक हफ्ते से दाल नहीं मिली, रोज़ सिर्फ चावल और आलू", {"menu_not_followed"}),
    ("आज स्कूल में खाना ही नहीं बना, गैस खत्म है", {"meal_not_served"}),
    ("हर बच्चे को सिर्फ एक रोटी दी गई, बाकी भूखे रह गए", {"insufficient_quantity"}),
    ("रसोई बहुत गंदी है, बर्तनों पर मक्खियाँ बैठी रहती हैं", {"poor_hygiene"}),
    ("चावल कच्चे थे और सब्ज़ी में बहुत ज़्यादा नमक था", {"poor_taste_or_cooking"}),
    ("रसोइया शराब पीकर आता है और बच्चों को गाली देता है", {"staff_misconduct"}),
    ("स्कूल की छत टूटी है, बारिश में पानी टपकता है", {"other"}),
    ("अंडे वाले दिन अंडा नहीं मिला और दूध में पानी मिला हुआ था", {"menu_not_followed", "poor_taste_or_cooking"}),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a model folder (default: the latest run)")
    args = parser.parse_args()
    from mealwatch.pipeline import Pipeline
    from mealwatch.runs import resolve_model

    folder = resolve_model(args.model)
    model = Pipeline.from_folder(folder)
    predictions = model.predict([text for text, _ in CASES])
    outcome = {"right": 0, "needs_review": 0, "CONFIDENTLY WRONG": 0}
    print(f"model {folder}\n")
    print("| text | expected | predicted | outcome |")
    print("|---|---|---|---|")
    for (text, expected), p in zip(CASES, predictions):
        right = set(p.labels) == expected
        verdict = "right" if right else "needs_review" if p.needs_review else "CONFIDENTLY WRONG"
        outcome[verdict] += 1
        shown = ", ".join(f"{label} {p.probabilities[label]:.2f}" for label in p.labels)
        flag = f" (review: {p.review_reasons[0]})" if p.needs_review else ""
        print(f"| {text} | {';'.join(sorted(expected))} | {shown}{flag} | {verdict} |")
    print("\n" + ", ".join(f"{k}: {v}" for k, v in outcome.items()) + f" (of {len(CASES)})")
    return 0 if outcome["CONFIDENTLY WRONG"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
