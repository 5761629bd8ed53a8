"""Regenerate kgsvc/samples/movies.ttl, the bundled sample KG (hand-written facts about well-known films).

Run: python scripts/make_sample.py  (the .ttl is committed; this script is how it was written).
"""

from __future__ import annotations

from pathlib import Path

# title, year, director(s), writer(s), actors, genre, language
FILMS = [
    (
        "Tokyo Godfathers",
        2003,
        ["Satoshi Kon"],
        ["Keiko Nobumoto", "Satoshi Kon"],
        ["Toru Emori", "Aya Okamoto"],
        "Animation",
        "Japanese",
    ),
    (
        "Perfect Blue",
        1997,
        ["Satoshi Kon"],
        ["Sadayuki Murai"],
        ["Junko Iwao", "Rica Matsumoto"],
        "Thriller",
        "Japanese",
    ),
    (
        "Paprika",
        2006,
        ["Satoshi Kon"],
        ["Seishi Minakami", "Satoshi Kon"],
        ["Megumi Hayashibara", "Toru Furuya"],
        "Science Fiction",
        "Japanese",
    ),
    (
        "Spirited Away",
        2001,
        ["Hayao Miyazaki"],
        ["Hayao Miyazaki"],
        ["Rumi Hiiragi", "Miyu Irino"],
        "Animation",
        "Japanese",
    ),
    (
        "My Neighbor Totoro",
        1988,
        ["Hayao Miyazaki"],
        ["Hayao Miyazaki"],
        ["Noriko Hidaka", "Chika Sakamoto"],
        "Animation",
        "Japanese",
    ),
    (
        "Princess Mononoke",
        1997,
        ["Hayao Miyazaki"],
        ["Hayao Miyazaki"],
        ["Yoji Matsuda", "Yuriko Ishida"],
        "Fantasy",
        "Japanese",
    ),
    (
        "Seven Samurai",
        1954,
        ["Akira Kurosawa"],
        ["Akira Kurosawa", "Shinobu Hashimoto"],
        ["Toshiro Mifune", "Takashi Shimura"],
        "Drama",
        "Japanese",
    ),
    (
        "Rashomon",
        1950,
        ["Akira Kurosawa"],
        ["Akira Kurosawa", "Shinobu Hashimoto"],
        ["Toshiro Mifune", "Machiko Kyo"],
        "Drama",
        "Japanese",
    ),
    (
        "Yojimbo",
        1961,
        ["Akira Kurosawa"],
        ["Akira Kurosawa", "Ryuzo Kikushima"],
        ["Toshiro Mifune", "Tatsuya Nakadai"],
        "Action",
        "Japanese",
    ),
    (
        "Pulp Fiction",
        1994,
        ["Quentin Tarantino"],
        ["Quentin Tarantino"],
        ["John Travolta", "Uma Thurman", "Samuel L. Jackson"],
        "Crime",
        "English",
    ),
    (
        "Jackie Brown",
        1997,
        ["Quentin Tarantino"],
        ["Quentin Tarantino"],
        ["Pam Grier", "Samuel L. Jackson", "Robert De Niro"],
        "Crime",
        "English",
    ),
    (
        "Kill Bill: Volume 1",
        2003,
        ["Quentin Tarantino"],
        ["Quentin Tarantino"],
        ["Uma Thurman", "Lucy Liu"],
        "Action",
        "English",
    ),
    (
        "Taxi Driver",
        1976,
        ["Martin Scorsese"],
        ["Paul Schrader"],
        ["Robert De Niro", "Jodie Foster"],
        "Drama",
        "English",
    ),
    (
        "Goodfellas",
        1990,
        ["Martin Scorsese"],
        ["Nicholas Pileggi", "Martin Scorsese"],
        ["Robert De Niro", "Ray Liotta", "Joe Pesci"],
        "Crime",
        "English",
    ),
    (
        "The Departed",
        2006,
        ["Martin Scorsese"],
        ["William Monahan"],
        ["Leonardo DiCaprio", "Matt Damon", "Jack Nicholson"],
        "Crime",
        "English",
    ),
    (
        "Inception",
        2010,
        ["Christopher Nolan"],
        ["Christopher Nolan"],
        ["Leonardo DiCaprio", "Elliot Page"],
        "Science Fiction",
        "English",
    ),
    (
        "Memento",
        2000,
        ["Christopher Nolan"],
        ["Christopher Nolan"],
        ["Guy Pearce", "Carrie-Anne Moss"],
        "Thriller",
        "English",
    ),
    (
        "Interstellar",
        2014,
        ["Christopher Nolan"],
        ["Jonathan Nolan", "Christopher Nolan"],
        ["Matthew McConaughey", "Anne Hathaway"],
        "Science Fiction",
        "English",
    ),
    (
        "The Shining",
        1980,
        ["Stanley Kubrick"],
        ["Stanley Kubrick", "Diane Johnson"],
        ["Jack Nicholson", "Shelley Duvall"],
        "Horror",
        "English",
    ),
    (
        "2001: A Space Odyssey",
        1968,
        ["Stanley Kubrick"],
        ["Stanley Kubrick", "Arthur C. Clarke"],
        ["Keir Dullea", "Gary Lockwood"],
        "Science Fiction",
        "English",
    ),
    (
        "Dr. Strangelove",
        1964,
        ["Stanley Kubrick"],
        ["Stanley Kubrick", "Terry Southern"],
        ["Peter Sellers", "George C. Scott"],
        "Comedy",
        "English",
    ),
    (
        "Amelie",
        2001,
        ["Jean-Pierre Jeunet"],
        ["Guillaume Laurant", "Jean-Pierre Jeunet"],
        ["Audrey Tautou", "Mathieu Kassovitz"],
        "Comedy",
        "French",
    ),
    (
        "Delicatessen",
        1991,
        ["Jean-Pierre Jeunet", "Marc Caro"],
        ["Gilles Adrien"],
        ["Dominique Pinon", "Marie-Laure Dougnac"],
        "Comedy",
        "French",
    ),
    (
        "La Haine",
        1995,
        ["Mathieu Kassovitz"],
        ["Mathieu Kassovitz"],
        ["Vincent Cassel", "Hubert Kounde"],
        "Drama",
        "French",
    ),
    (
        "Pan's Labyrinth",
        2006,
        ["Guillermo del Toro"],
        ["Guillermo del Toro"],
        ["Ivana Baquero", "Sergi Lopez"],
        "Fantasy",
        "Spanish",
    ),
    (
        "The Shape of Water",
        2017,
        ["Guillermo del Toro"],
        ["Guillermo del Toro", "Vanessa Taylor"],
        ["Sally Hawkins", "Michael Shannon"],
        "Fantasy",
        "English",
    ),
    (
        "Roma",
        2018,
        ["Alfonso Cuaron"],
        ["Alfonso Cuaron"],
        ["Yalitza Aparicio", "Marina de Tavira"],
        "Drama",
        "Spanish",
    ),
    (
        "Gravity",
        2013,
        ["Alfonso Cuaron"],
        ["Alfonso Cuaron", "Jonas Cuaron"],
        ["Sandra Bullock", "George Clooney"],
        "Science Fiction",
        "English",
    ),
    (
        "Parasite",
        2019,
        ["Bong Joon-ho"],
        ["Bong Joon-ho", "Han Jin-won"],
        ["Song Kang-ho", "Choi Woo-shik"],
        "Thriller",
        "Korean",
    ),
    (
        "Memories of Murder",
        2003,
        ["Bong Joon-ho"],
        ["Bong Joon-ho", "Shim Sung-bo"],
        ["Song Kang-ho", "Kim Sang-kyung"],
        "Crime",
        "Korean",
    ),
    (
        "Oldboy",
        2003,
        ["Park Chan-wook"],
        ["Park Chan-wook", "Hwang Jo-yoon"],
        ["Choi Min-sik", "Yoo Ji-tae"],
        "Thriller",
        "Korean",
    ),
    (
        "The Handmaiden",
        2016,
        ["Park Chan-wook"],
        ["Park Chan-wook", "Chung Seo-kyung"],
        ["Kim Min-hee", "Kim Tae-ri"],
        "Thriller",
        "Korean",
    ),
    (
        "Fargo",
        1996,
        ["Joel Coen", "Ethan Coen"],
        ["Joel Coen", "Ethan Coen"],
        ["Frances McDormand", "William H. Macy"],
        "Crime",
        "English",
    ),
    (
        "The Big Lebowski",
        1998,
        ["Joel Coen", "Ethan Coen"],
        ["Joel Coen", "Ethan Coen"],
        ["Jeff Bridges", "John Goodman"],
        "Comedy",
        "English",
    ),
    (
        "No Country for Old Men",
        2007,
        ["Joel Coen", "Ethan Coen"],
        ["Joel Coen", "Ethan Coen"],
        ["Tommy Lee Jones", "Javier Bardem", "Josh Brolin"],
        "Thriller",
        "English",
    ),
    ("Alien", 1979, ["Ridley Scott"], ["Dan O'Bannon"], ["Sigourney Weaver", "Tom Skerritt"], "Horror", "English"),
    (
        "Blade Runner",
        1982,
        ["Ridley Scott"],
        ["Hampton Fancher", "David Peoples"],
        ["Harrison Ford", "Rutger Hauer"],
        "Science Fiction",
        "English",
    ),
    (
        "Gladiator",
        2000,
        ["Ridley Scott"],
        ["David Franzoni"],
        ["Russell Crowe", "Joaquin Phoenix"],
        "Action",
        "English",
    ),
    (
        "Jaws",
        1975,
        ["Steven Spielberg"],
        ["Peter Benchley", "Carl Gottlieb"],
        ["Roy Scheider", "Richard Dreyfuss"],
        "Thriller",
        "English",
    ),
    (
        "Jurassic Park",
        1993,
        ["Steven Spielberg"],
        ["Michael Crichton", "David Koepp"],
        ["Sam Neill", "Laura Dern", "Jeff Goldblum"],
        "Science Fiction",
        "English",
    ),
    (
        "Schindler's List",
        1993,
        ["Steven Spielberg"],
        ["Steven Zaillian"],
        ["Liam Neeson", "Ralph Fiennes"],
        "Drama",
        "English",
    ),
    (
        "Cinema Paradiso",
        1988,
        ["Giuseppe Tornatore"],
        ["Giuseppe Tornatore"],
        ["Philippe Noiret", "Salvatore Cascio"],
        "Drama",
        "Italian",
    ),
    (
        "Life Is Beautiful",
        1997,
        ["Roberto Benigni"],
        ["Roberto Benigni", "Vincenzo Cerami"],
        ["Roberto Benigni", "Nicoletta Braschi"],
        "Comedy",
        "Italian",
    ),
    (
        "Run Lola Run",
        1998,
        ["Tom Tykwer"],
        ["Tom Tykwer"],
        ["Franka Potente", "Moritz Bleibtreu"],
        "Thriller",
        "German",
    ),
    (
        "The Lives of Others",
        2006,
        ["Florian Henckel von Donnersmarck"],
        ["Florian Henckel von Donnersmarck"],
        ["Ulrich Muhe", "Sebastian Koch"],
        "Drama",
        "German",
    ),
]

PEOPLE_BORN = {
    "Satoshi Kon": ("Sapporo", 1963),
    "Hayao Miyazaki": ("Tokyo", 1941),
    "Akira Kurosawa": ("Tokyo", 1910),
    "Quentin Tarantino": ("Knoxville", 1963),
    "Martin Scorsese": ("New York City", 1942),
    "Christopher Nolan": ("London", 1970),
    "Stanley Kubrick": ("New York City", 1928),
    "Jean-Pierre Jeunet": ("Roanne", 1953),
    "Guillermo del Toro": ("Guadalajara", 1964),
    "Alfonso Cuaron": ("Mexico City", 1961),
    "Bong Joon-ho": ("Daegu", 1969),
    "Park Chan-wook": ("Seoul", 1963),
    "Ridley Scott": ("South Shields", 1937),
    "Steven Spielberg": ("Cincinnati", 1946),
    "Toshiro Mifune": ("Qingdao", 1920),
    "Robert De Niro": ("New York City", 1943),
    "Uma Thurman": ("Boston", 1970),
    "Leonardo DiCaprio": ("Los Angeles", 1974),
    "Jack Nicholson": ("Neptune City", 1937),
    "Song Kang-ho": ("Gimhae", 1967),
    "Audrey Tautou": ("Beaumont", 1976),
}


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text).strip("_")


def lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main() -> None:
    lines = [
        "# kgsvc sample KG: well-known films, people and places. Written for kgsvc (CC0).",
        "# Regenerate with scripts/make_sample.py.",
        "@prefix ex: <https://kgsvc.local/sample/> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        "",
    ]
    relations = {
        "directedBy": "directed by",
        "writtenBy": "written by",
        "starring": "starring",
        "releaseYear": "release year",
        "genre": "genre",
        "language": "in language",
        "bornIn": "born in",
        "birthYear": "birth year",
    }
    for key, label in relations.items():
        lines.append(f"ex:{key} rdfs:label {lit(label)} .")
    labels: dict[str, str] = {}
    for title, year, directors, writers, actors, genre, language in FILMS:
        film = f"ex:film_{slug(title)}"
        labels[film] = title
        lines.append(f"{film} ex:releaseYear {lit(str(year))}^^xsd:gYear .")
        for who, rel in (
            [(d, "directedBy") for d in directors]
            + [(w, "writtenBy") for w in writers]
            + [(a, "starring") for a in actors]
        ):
            node = f"ex:person_{slug(who)}"
            labels[node] = who
            lines.append(f"{film} ex:{rel} {node} .")
        for value, rel, prefix in ((genre, "genre", "genre"), (language, "language", "language")):
            node = f"ex:{prefix}_{slug(value)}"
            labels[node] = value
            lines.append(f"{film} ex:{rel} {node} .")
    for person, (place, year) in PEOPLE_BORN.items():
        node, place_node = f"ex:person_{slug(person)}", f"ex:place_{slug(place)}"
        labels[place_node] = place
        lines.append(f"{node} ex:bornIn {place_node} .")
        lines.append(f"{node} ex:birthYear {lit(str(year))}^^xsd:gYear .")
    for node, label in sorted(labels.items()):
        lines.append(f"{node} rdfs:label {lit(label)} .")
    out = Path(__file__).resolve().parents[1] / "kgsvc" / "samples" / "movies.ttl"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out}: {sum(1 for line in lines if line.endswith(' .') and not line.startswith('@'))} triples")


if __name__ == "__main__":
    main()
