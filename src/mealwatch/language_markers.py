"""Words that tell Roman Urdu from romanised Hindi, two ways of typing one spoken language in Latin letters.

Most words of a school-meal complaint are shared ("bachon ko khana nahi mila"); what differs is vocabulary
drawn from Persian and Arabic (Urdu: "walidain", "ittila", "janab", "taleem", "ghiza", "khidmat") or from Sanskrit
and Hindu life (Hindi: "kripya", "vidyalaya", "bhojan", "dhanyavad"), greetings ("assalamualaikum" against
"namaste") and a few spellings ("hy" for "hai", "bohat" for "bahut", Deccani "ku" and "bolre"). Each word is
rare, so a model fitted on a few dozen Roman Urdu texts meets most of them once or never; ``marker_view`` reads
a text as one token per marker word it holds (``URDU_TOKEN``, ``HINDI_TOKEN``), so that every marker word,
seen in training or not, counts as evidence of its language. Words common in both ("sahab", "shikayat",
"zaroorat") are left out: the identifier's own word n-grams weigh those. No model knowledge.
"""

from __future__ import annotations

import regex

#: Latin spellings of words Roman Urdu uses and romanised Hindi seldom does: Perso-Arabic vocabulary, Muslim
#: greetings and names of kin, days and offices, Roman Urdu spellings and Deccani forms
URDU_WORDS = frozenset(
    """
    assalamualaikum assalamoalaikum asalamualaikum aslamualaikum salaam walaikumassalam alhamdulillah inshallah
    insha mashallah subhanallah allah khuda shukr shukriya janab jnab mohtaram mohtarma bohat bohot buhat afsos
    walidain waldain taleem talim taleemi ghiza khidmat ittila ittilaa itla darkhwast darkhast guzarish guzaarish
    iltija hukumat mutaliq mutalliq mutalik masla masail jamat jamaat jumeraat jumerat juma jumma itwar dafa dafaa
    martaba gunah qai baqi baaqi dua duaa namaz roza madrasa madarsa maulana maulvi imam masjid apa aapa ammi abbu
    abba phuppo tareeqa tariqa qareeb qarib waqia waqiya hadsa haadsa mareez mareezon daakhil dakhil mutasir
    mutassir mutaasir mutasireen lihaza balke chunanche taake kyunke kyonke kiunke hy mujhay hamain nakko ku bolre
    bolri hau inteqal intiqal wafat janaza qabr idara intezamiya tehqeeqat tahqiqat wazir mulazim mulazmeen ustad
    ustaad asatiza talaba talba nazim
    """.split()
)
#: Latin spellings of words romanised Hindi uses and Roman Urdu seldom does: Sanskrit-derived vocabulary of
#: letters and offices, greetings and Hindu festivals and prayers (names of places and schemes left out)
HINDI_WORDS = frozenset(
    """
    bhagwan bhagvan bhagwaan pranam pranaam namaste namaskar shriman shrimati mahoday mahodaya kripya kripa
    dhanyavad dhanyawad pradhanacharya pradhanadhyapak adhyapak shikshak shiksha bhojan madhyan madhyahn samasya
    suchna soochna sahayata avashyak vibhag adhikari karyavahi nivedan prarthana chhath pooja puja mandir ishwar
    prabhu parivar abhibhavak sthiti vyavastha swasthya upchar chikitsa rashtriya behen
    """.split()
)
#: what ``marker_view`` writes for a marker word of each language (words of the identifier's word pattern)
URDU_TOKEN, HINDI_TOKEN = "urduword", "hindiword"
_WORD = regex.compile(r"\p{L}+")


def marker_view(text: str) -> str:
    """``text`` as its marker words only: ``URDU_TOKEN`` for each word of ``URDU_WORDS``, ``HINDI_TOKEN`` for each
    of ``HINDI_WORDS``, in order, separated by spaces (empty when it holds none)."""
    tokens = []
    for word in _WORD.findall(text.lower()):
        if word in URDU_WORDS:
            tokens.append(URDU_TOKEN)
        elif word in HINDI_WORDS:
            tokens.append(HINDI_TOKEN)
    return " ".join(tokens)
