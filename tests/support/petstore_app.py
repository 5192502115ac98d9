"""A small Petstore 3 server for the OpenAPI import tests: a few of its operations.

The document the tests import is the real one, committed as it was published
(``petstore/openapi.yaml``, Apache-2.0: ``petstore/LICENSE``, from
github.com/swagger-api/swagger-petstore ``src/main/resources/openapi.yaml``); this app
answers the operations they call, under ``/api/v3`` as its server entry says, the way the
reference server does (a Pet as JSON, 404 ``Pet not found``, 400 for a bad status).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

SPEC: Final = Path(__file__).parent / "petstore" / "openapi.yaml"
STATUSES: Final = ("available", "pending", "sold")


def make_app() -> tuple[FastAPI, dict[int, dict[str, Any]]]:
    pets: dict[int, dict[str, Any]] = {
        10: {"id": 10, "name": "doggie", "category": {"id": 1, "name": "Dogs"},
             "photoUrls": ["string"], "tags": [{"id": 0, "name": "string"}],
             "status": "available"},
    }
    app = FastAPI(openapi_url=None)

    @app.get("/api/v3/pet/findByStatus")
    async def find_by_status(status: str = "available") -> Any:
        if status not in STATUSES:
            return PlainTextResponse("Input error: query parameter `status invalid`", 400)
        return [pet for pet in pets.values() if pet.get("status") == status]

    @app.get("/api/v3/pet/{pet_id}")
    async def get_pet(pet_id: int) -> Any:
        pet = pets.get(pet_id)
        if pet is None:
            return PlainTextResponse("Pet not found", 404)
        return pet

    @app.post("/api/v3/pet")
    async def add_pet(request: Request) -> Any:
        pet = await request.json()
        if not isinstance(pet, dict) or "name" not in pet or "photoUrls" not in pet:
            return JSONResponse({"code": 400, "message": "Invalid input"}, 400)
        pets[int(pet.get("id", max(pets) + 1))] = pet
        return pet

    @app.delete("/api/v3/pet/{pet_id}")
    async def delete_pet(pet_id: int, request: Request) -> Any:
        if request.headers.get("api_key") != "special-key":
            return PlainTextResponse("Unauthorized", 401)
        pets.pop(pet_id, None)
        return PlainTextResponse("Pet deleted")

    @app.get("/api/v3/store/inventory")
    async def inventory() -> dict[str, int]:
        counts: dict[str, int] = {}
        for pet in pets.values():
            counts[pet["status"]] = counts.get(pet["status"], 0) + 1
        return counts

    return app, pets
