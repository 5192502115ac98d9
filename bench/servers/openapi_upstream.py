"""The external API of bench/openapi_import.py: a small FastAPI app, served by uvicorn in its
own process (its CPU is not the importer's). ``--spec PATH`` writes its OpenAPI document.

    python bench/servers/openapi_upstream.py --port 8765
    python bench/servers/openapi_upstream.py --spec /tmp/inventory.json
"""

from __future__ import annotations

import argparse
import json

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel


class Item(BaseModel):
    id: int
    name: str
    tags: list[str] = []


ITEMS = {i: Item(id=i, name=f"item {i}", tags=["a", "b"]) for i in range(1, 11)}
app = FastAPI(title="Inventory", version="1.0")


@app.get("/items/{item_id}", operation_id="getItem", tags=["items"], response_model=Item)
async def get_item(item_id: int) -> Item:
    """Returns one item."""
    if item_id not in ITEMS:
        raise HTTPException(404, f"no item {item_id}")
    return ITEMS[item_id]


@app.get("/items", operation_id="listItems", tags=["items"], response_model=list[Item])
async def list_items(limit: int = 10) -> list[Item]:
    """Lists items."""
    return list(ITEMS.values())[:limit]


@app.post("/items", operation_id="createItem", tags=["items"], response_model=Item)
async def create_item(item: Item) -> Item:
    """Adds an item."""
    ITEMS[item.id] = item
    return item


@app.delete("/items/{item_id}", operation_id="deleteItem", tags=["admin"])
async def delete_item(item_id: int) -> dict[str, bool]:
    """Removes an item."""
    return {"deleted": ITEMS.pop(item_id, None) is not None}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--spec")
    options = parser.parse_args()
    if options.spec:
        with open(options.spec, "w", encoding="utf-8") as out:
            json.dump(app.openapi(), out)
    else:
        import uvicorn

        uvicorn.run(app, host="127.0.0.1", port=options.port, log_level="warning",
                    access_log=False)
